#!/bin/sh
# Every function's start wrapper: Lambda runs it (AWS_LAMBDA_EXEC_WRAPPER) with the command line
# its Node.js runtime would run, `node --expose-gc … /var/runtime/index.mjs`, and this runs that
# command without `--expose-gc`. That flag changes V8's flag hash, so Node rejects the code cache
# of its own modules and compiles every built-in it loads from source: ~12 ms more CPU at each
# cold start of a function (docs/performance.md, "Lambda's own flags"). No function and not the
# runtime client calls gc(). Every other argument is passed on as it came, in order, empty ones
# included; an argument is dropped only if it is exactly `--expose-gc` (Lambda's spelling; a
# `NODE_OPTIONS` flag is left alone). `exec`: Node replaces this shell, with its exit status.
node="$1"
shift
for arg do
  shift
  [ "$arg" = "--expose-gc" ] || set -- "$@" "$arg"
done
exec "$node" "$@"
