/**
 * The tools package.json installs, as docs/contributing.md ("The tools") explains them: `tsc` is
 * TypeScript 7's native compiler, whatever order npm links same-named bins in; Node's types and
 * the local Node binaries are those of the Node the functions run on; and Dependabot proposes
 * each toolchain's packages together, one group each, never a new Node major.
 */
import { readFileSync, realpathSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { parse } from 'yaml';
import { NODE_MAJOR } from '../../../lib/definitions/bundling';

const ROOT = join(__dirname, '../../..');
interface Manifest {
  version: string;
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
}
const manifest = (dir: string) =>
  JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as Manifest;
const ROOT_MANIFEST = manifest(ROOT);
const major = (version: string) => Number(/\d+/.exec(version)![0]);
const packageDir = (name: string) => dirname(require.resolve(`${name}/package.json`));
const NODE_BINARIES = Object.keys(ROOT_MANIFEST.optionalDependencies ?? {}).filter((name) =>
  /^node-\w+-\w+$/.test(name),
);

it("npm test's `tsc` is TypeScript 7's native compiler", () => {
  // `typescript` (TypeScript 6's API) ships a `tsc` too, through its own dependency: a link to
  // that one would check the same code, only several times slower.
  const native = packageDir('@typescript/native');
  expect(realpathSync(join(ROOT, 'node_modules/.bin/tsc'))).toBe(
    join(realpathSync(native), 'bin/tsc'),
  );
  expect(major(manifest(native).version)).toBeGreaterThanOrEqual(7);
});

it("Node's types and the local Node binaries are of the major the functions run on", () => {
  expect(NODE_BINARIES).not.toEqual([]);
  const declared = [
    ['@types/node', ROOT_MANIFEST.devDependencies!['@types/node']!],
    ['@types/node installed', manifest(packageDir('@types/node')).version],
    ...NODE_BINARIES.map((name) => [name, ROOT_MANIFEST.optionalDependencies![name]!]),
  ];
  expect(declared.map(([name, version]) => [name, major(version!)])).toEqual(
    declared.map(([name]) => [name, NODE_MAJOR]),
  );
});

describe('Dependabot (npm)', () => {
  interface Group {
    'dependency-type'?: 'development' | 'production';
    patterns?: string[];
    'exclude-patterns'?: string[];
  }
  interface Ignore {
    'dependency-name': string;
    versions?: string[];
    'update-types'?: string[];
  }
  const { updates } = parse(readFileSync(join(ROOT, '.github/dependabot.yml'), 'utf8')) as {
    updates: { 'package-ecosystem': string; groups: Record<string, Group>; ignore: Ignore[] }[];
  };
  const npm = updates.find((update) => update['package-ecosystem'] === 'npm')!;
  /** Dependabot's wildcard: `*` is any run of characters, the rest is literal. */
  const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
  const matches = (pattern: string, name: string) =>
    new RegExp(`^${pattern.split('*').map(escape).join('.*')}$`).test(name);
  const DEPENDENCIES = [ROOT_MANIFEST, manifest(join(ROOT, 'client'))].flatMap((m) => [
    ...Object.keys(m.dependencies ?? {}).map((name) => [name, 'production'] as const),
    ...Object.keys(m.optionalDependencies ?? {}).map((name) => [name, 'production'] as const),
    ...Object.keys(m.devDependencies ?? {}).map((name) => [name, 'development'] as const),
  ]);
  const groupsOf = (name: string) => {
    const type = DEPENDENCIES.find(([dependency]) => dependency === name)![1];
    return Object.entries(npm.groups)
      .filter(
        ([, group]) =>
          (group['dependency-type'] ?? type) === type &&
          (group.patterns ?? ['*']).some((pattern) => matches(pattern, name)) &&
          !(group['exclude-patterns'] ?? []).some((pattern) => matches(pattern, name)),
      )
      .map(([group]) => group);
  };

  it('puts each dependency in one group at most', () => {
    const overlapping = DEPENDENCIES.filter(([name]) => groupsOf(name).length > 1);
    expect(overlapping.map(([name]) => [name, groupsOf(name)])).toEqual([]);
  });

  it.each([
    ['TypeScript: the compiler and the API', ['@typescript/native', 'typescript']],
    [
      'Jest, its environment, types and transform',
      ['jest', 'jest-environment-node', '@types/jest', 'ts-jest'],
    ],
    ["Node's types and the local Node binaries", ['@types/node', ...NODE_BINARIES]],
  ])('proposes %s together', (_, family) => {
    const [group, ...others] = groupsOf(family[0]!);
    expect([group, others]).toEqual([expect.any(String), []]);
    expect(family.map((name) => [name, groupsOf(name)])).toEqual(
      family.map((name) => [name, [group]]),
    );
  });

  it("proposes no new major of Node's types or binaries, and no TypeScript 7 as the API", () => {
    const ignores = (name: string, rule: (ignore: Ignore) => boolean | undefined) =>
      npm.ignore.some((ignore) => matches(ignore['dependency-name'], name) && rule(ignore));
    const majors = (ignore: Ignore) =>
      ignore['update-types']?.includes('version-update:semver-major');
    const NODE = ['@types/node', ...NODE_BINARIES];
    expect(NODE.map((name) => [name, ignores(name, majors)])).toEqual(
      NODE.map((name) => [name, true]),
    );
    expect(ignores('typescript', (ignore) => ignore.versions?.includes('>=7'))).toBe(true);
    expect(ignores('@typescript/native', () => true)).toBe(false);
  });
});
