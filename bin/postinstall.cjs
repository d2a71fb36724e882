// npm links the `node` binary of the optional `node-<platform>-<arch>` package (Lambda's Node,
// which the local sandboxes and the bench run) as node_modules/.bin/node, and npm puts that
// folder first on PATH in every script: tests, tsc, eslint and the CLIs would all silently run on
// it. Remove the link so that tooling keeps the machine's Node; lib/definitions/lambda-node.ts finds the
// binary by its package.
const { rmSync } = require('node:fs');
const { join } = require('node:path');

for (const name of ['node', 'node.cmd', 'node.ps1']) {
  rmSync(join(__dirname, '..', 'node_modules', '.bin', name), { force: true });
}
