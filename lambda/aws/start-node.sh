#!/bin/sh
# Every function's start wrapper: Lambda runs it (AWS_LAMBDA_EXEC_WRAPPER) with the command line
# its Node.js runtime would run, `node --expose-gc … /var/runtime/index.mjs`, and this runs that
# command with two changes, each measured by `npm run bench -- --phases cold` (as Lambda starts
# it, with and without this wrapper):
# - without `--expose-gc`. That flag changes V8's flag hash, so Node rejects the code cache of its
#   own modules and compiles every built-in it loads from source: ~12 ms more CPU at each cold
#   start of a function. No function and not the runtime client calls gc(). An argument is dropped
#   only if it is exactly `--expose-gc` (Lambda's spelling; a `NODE_OPTIONS` flag is left alone).
# - with `--min-semi-space-size=8`, before the rest. V8 starts the young generation at 1 MB; a
#   function's import allocates ~2 MB there and its first call 1-2 MB more: two or three
#   scavenges in every cold start, none with 8 MB. Node refuses the flag in NODE_OPTIONS. A flag
#   Lambda passes later wins, and V8 caps the start at Lambda's `--max-semi-space-size`. Not in
#   Lambda's multi-concurrent mode (AWS_LAMBDA_MAX_CONCURRENCY set, Lambda Managed Instances):
#   there the runtime client starts worker threads with this process's flags, less Lambda's own
#   three, and Node refuses any other V8 flag in a worker's execArgv: no function would start.
# Every other argument is passed on as it came, in order, empty ones included. `exec`: Node
# replaces this shell, with its exit status. START_WRAPPER.nodeFlags (lib/definitions) names the
# added flag for the local runtime, which starts its sandboxes without this script.
node="$1"
shift
for arg do
  shift
  [ "$arg" = "--expose-gc" ] || set -- "$@" "$arg"
done
if [ -n "${AWS_LAMBDA_MAX_CONCURRENCY+set}" ]; then
  exec "$node" "$@"
fi
exec "$node" --min-semi-space-size=8 "$@"
