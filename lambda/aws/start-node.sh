#!/bin/sh
# Every function's start wrapper: Lambda runs it (AWS_LAMBDA_EXEC_WRAPPER) with the command line
# its Node.js runtime would run, `node --expose-gc … /var/runtime/index.mjs`, and this starts
# that command without `--expose-gc`. That one flag changes V8's flag hash, so Node rejects the
# code cache of its own modules and compiles every built-in it loads from source: ~14 ms more
# CPU at each cold start of a function (docs/performance.md, "Lambda's own flags"). No function
# and not the runtime client calls gc(). Every other argument is passed on as it came.
node="$1"
shift
for arg do
  shift
  [ "$arg" = "--expose-gc" ] || set -- "$@" "$arg"
done
exec "$node" "$@"
