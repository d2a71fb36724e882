/**
 * The README's client section, followed as a newcomer would: the tarball installed into a project
 * made by `npm init -y` (CommonJS) and into an ES module one, the TypeScript snippet saved as
 * written (only its base URL pointed at this suite's runtime) and run with tsx, with a token and
 * without one; and the tarball's name ignored by git where `npm pack -w` writes it.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { npmOffline, packClient, TSC } from '../../support/client-tarball';
import { useLocalService } from '../../support/local-service';

const run = promisify(execFile);
const ROOT = join(__dirname, '../../..');
const TSX = join(ROOT, 'node_modules/.bin/tsx');
const README = readFileSync(join(ROOT, 'README.md'), 'utf8');
const service = useLocalService('client-readme');
const work = mkdtempSync(join(tmpdir(), 'plant-store-client-readme-'));
let tarball: string;

/** The first block of `language` after `heading`, as README shows it. */
function readmeBlock(heading: string, language: string): string {
  const section = README.slice(README.indexOf(heading));
  const block = new RegExp('```' + language + '\\n([^]*?)```').exec(section);
  if (!block) throw new Error(`README has no ${language} block after ${heading}`);
  return block[1]!;
}

const SNIPPET = readmeBlock('### From TypeScript or JavaScript', 'ts');
const INSTALL = readmeBlock('### From TypeScript or JavaScript', 'sh');

beforeAll(async () => {
  tarball = await packClient(work);
}, 300_000);

afterAll(() => rmSync(work, { recursive: true, force: true }));

it('README installs the tarball that npm pack -w writes in the repository, which git ignores', async () => {
  expect(INSTALL).toMatch(/^npm pack -w @plant-store\/client\b/m);
  expect(INSTALL).toMatch(/^npm install \S*plant-store-client-\*\.tgz$/m);
  const name = tarball.slice(work.length + 1);
  expect(name).toMatch(/^plant-store-client-\d+\.\d+\.\d+\.tgz$/);
  await expect(run('git', ['check-ignore', name], { cwd: ROOT })).resolves.toMatchObject({
    stdout: `${name}\n`,
  });
});

const PROJECTS = {
  'npm init -y (CommonJS)': { type: 'commonjs', setUp: [] as string[][], javascript: 'index.mjs' },
  'an ES module project': {
    type: 'module',
    setUp: [['pkg', 'set', 'type=module']],
    javascript: 'index.js',
  },
};

describe.each(Object.entries(PROJECTS))('in %s', (_, project) => {
  const dir = join(work, project.type);
  const script = (command: string, file: string, env: Record<string, string | undefined>) =>
    run(command, [file], { cwd: dir, env: { ...process.env, ...env } }).then(
      ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
      (error: { code: number; stdout: string; stderr: string }) => error,
    );

  beforeAll(async () => {
    mkdirSync(dir);
    await npmOffline(dir, 'init', '-y');
    for (const args of project.setUp) await npmOffline(dir, ...args);
    const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
    expect(manifest.type).toBe(project.type);
    await expect(npmOffline(dir, 'install', tarball)).resolves.toMatchObject({ stderr: '' });
    // The runtime of this suite is on a free port; everything else is the README's text.
    expect(SNIPPET.split("'http://127.0.0.1:3000'")).toHaveLength(2);
    const source = SNIPPET.replace('http://127.0.0.1:3000', service.url);
    writeFileSync(join(dir, 'index.ts'), source);
    writeFileSync(join(dir, project.javascript), source);
  }, 300_000);

  it.each([
    ['tsx', TSX, 'index.ts'],
    ['node', process.execPath, project.javascript],
  ])(
    'the snippet runs as written with %s: it creates, reads and lists the plant, every digit kept',
    async (_, command, file) => {
      const { code, stdout, stderr } = await script(command, file, {
        PLANT_STORE_TOKEN: service.devToken,
      });
      expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
      expect(stdout).toBe(
        "{ id: 9007199254740993n, name: 'Monstera', tag: 'aroid' }\n9007199254740993n\n",
      );
    },
    300_000,
  );

  it('without PLANT_STORE_TOKEN it says so in one line, exit status 1', async () => {
    await expect(script(TSX, 'index.ts', { PLANT_STORE_TOKEN: undefined })).resolves.toMatchObject({
      code: 1,
      stdout: '',
      stderr: 'TypeError: no token given: token must be a bearer token (pst_…)\n',
    });
  }, 300_000);

  it('type-checks as TypeScript (strict, nodenext) in this module system', async () => {
    const args = ['--noEmit', '--strict', '--module', 'nodenext', '--target', 'es2022'];
    const types = ['--typeRoots', join(ROOT, 'node_modules/@types'), '--types', 'node'];
    await expect(
      run(process.execPath, [TSC, ...args, ...types, 'index.ts'], { cwd: dir }),
    ).resolves.toMatchObject({ stdout: '', stderr: '' });
  }, 300_000);
});
