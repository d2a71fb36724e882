/**
 * Watch mode as a user meets it, on a temporary copy of the project (the real tree is never
 * edited): `npm start` runs there, a saved change to a function is served on the next requests
 * and rebuilds only the bundles that include the file, a broken save is printed while the old
 * code keeps answering, a change to the API definition restarts the gateway on its port, and
 * every way editors and git save (in place, rename over, delete and create, a folder renamed,
 * `git checkout`) is followed, each several times in a row.
 */
import { execFileSync } from 'node:child_process';
import {
  appendFileSync,
  readFileSync,
  renameSync,
  rmSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { copyProject } from '../../../lib/lab/bench/watch-reload';
import { startNpmStart, type ListeningNpmStart } from '../../../lib/npm-start/spawn';
import { uncheckedFetch } from '../../support/http';

const MESSAGE = 'must be valid JSON';
let copy: string;
let running: ListeningNpmStart | undefined;
/** Everything npm start has printed so far. */
const output = () => running?.output() ?? '';
let url: string;
let token: string;

beforeAll(async () => {
  copy = copyProject('plant-store-watch-');
  running = await startNpmStart({
    root: copy,
    env: {
      PORT: '0',
      PLANT_STORE_DB_PORT: '0',
      PLANT_STORE_DATA_DIR: join(copy, '.plant-store'),
    },
    args: ['--memory'],
  });
  url = running.url;
  token = readFileSync(join(copy, '.plant-store', 'dev-token'), 'utf8').trim();
}, 300_000);
afterAll(async () => {
  await running?.stop();
  rmSync(copy, { recursive: true, force: true });
});

async function until(check: () => boolean | Promise<boolean>, what: string, ms = 60_000) {
  const started = Date.now();
  while (!(await check())) {
    if (Date.now() - started > ms) throw new Error(`waited ${ms} ms for ${what}:\n${output()}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** create-plant's answer to a body that is not JSON (its message comes from lambda/http/json.ts). */
async function ask(path = '/plants') {
  // A route this test adds to the copy's lib/definitions/api.ts is not in openapi.json: not checked.
  const send = path === '/plants' ? fetch : uncheckedFetch;
  const response = await send(`${url}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: '{',
  });
  return { status: response.status, text: await response.text() };
}

const source = () => join(copy, 'lambda/http/json.ts');

it('serves a saved change on the next requests, rebuilding only the bundles that include it', async () => {
  expect((await ask()).text).toContain(MESSAGE);
  const original = readFileSync(source(), 'utf8');
  writeFileSync(source(), original.replaceAll(MESSAGE, 'must be JSON (edited)'));
  await until(async () => (await ask()).text.includes('must be JSON (edited)'), 'the new answer');
  expect(output()).toMatch(/\[watch\] create-plant: rebuilt in \d+ ms/);
  // The authorizer's bundle does not include json.ts.
  expect(output()).not.toMatch(/\[watch\] authorizer: rebuilt/);
});

it('a request sent right after a save waits for the rebuild and gets the new code', async () => {
  for (const round of [1, 2, 3]) {
    const current = readFileSync(source(), 'utf8');
    writeFileSync(
      source(),
      current.replace(/must be (?:valid JSON|JSON \([^)]*\))/g, `must be JSON (at once ${round})`),
    );
    // Asked at once, no polling: the answer is the saved code's, never the previous build's.
    expect((await ask()).text).toContain(`must be JSON (at once ${round})`);
  }
});

it('prints a broken save as one block and keeps serving the previous build', async () => {
  appendFileSync(source(), '\nexport const broken = ;\n');
  // The line names every function whose bundle includes the file, create-plant among them.
  const failed = /\[watch\] [a-z, -]*\bcreate-plant\b[a-z, -]*: the build failed/;
  await until(() => failed.test(output()), 'the error');
  const printed = output();
  const block = printed.slice(printed.search(failed));
  // One build for all functions: the error is printed once, not once per function.
  expect(block.match(/the build failed/g)).toHaveLength(1);
  expect(block).toContain('[ERROR] Unexpected ";"');
  expect(block).toMatch(/lambda\/http\/json\.ts:\d+:\d+:\n.*export const broken = ;/);
  expect(block).not.toMatch(/\n\s+at /);
  expect((await ask()).text).toContain('must be JSON (at once 3)');
  const fixed = readFileSync(source(), 'utf8').replace('\nexport const broken = ;\n', '');
  writeFileSync(source(), fixed.replaceAll('must be JSON (at once 3)', 'must be JSON (fixed)'));
  await until(async () => (await ask()).text.includes('must be JSON (fixed)'), 'the fixed answer');
});

it('restarts the gateway on its port when lib/definitions/api.ts changes', async () => {
  expect((await ask('/watch-probe')).status).toBe(404);
  appendFileSync(
    join(copy, 'lib/definitions/api.ts'),
    "\n(API.routes as RouteDefinition[]).push({ method: 'POST', path: '/watch-probe', function: 'create-plant', authorized: true });\n",
  );
  await until(() => output().includes('[watch] lib/definitions/api.ts changed'), 'the restart');
  const answer = await ask('/watch-probe');
  expect(answer.status).toBe(400);
  expect(answer.text).toContain('must be JSON (fixed)');
});

describe('follows every way a file is saved, several times in a row', () => {
  /** The copy's json.ts with its message set to `must be JSON (<marker>)`. */
  const withMarker = (marker: string) =>
    readFileSync(source(), 'utf8').replace(
      /must be (?:valid JSON|JSON \([^)]*\))/g,
      `must be JSON (${marker})`,
    );
  const served = (marker: string) =>
    until(async () => (await ask()).text.includes(`must be JSON (${marker})`), marker);

  const saves: [string, (marker: string) => void][] = [
    ['in place', (marker) => writeFileSync(source(), withMarker(marker))],
    [
      // vim, JetBrains, sed -i: a new file renamed over the old one.
      'rename over',
      (marker) => {
        const temporary = `${source()}.tmp`;
        writeFileSync(temporary, withMarker(marker));
        renameSync(temporary, source());
      },
    ],
    [
      'delete and create',
      (marker) => {
        const text = withMarker(marker);
        unlinkSync(source());
        writeFileSync(source(), text);
      },
    ],
    [
      'a folder renamed away, edited and renamed back',
      (marker) => {
        const text = withMarker(marker);
        const shared = join(copy, 'lambda/http');
        renameSync(shared, `${shared}-moved`);
        writeFileSync(join(`${shared}-moved`, 'json.ts'), text);
        renameSync(`${shared}-moved`, shared);
      },
    ],
  ];

  it.each(saves)(
    '%s',
    async (how, save) => {
      for (const round of [1, 2, 3]) {
        const marker = `${how} ${round}`;
        save(marker);
        await served(marker);
      }
    },
    600_000,
  );

  it('git checkout, back and forth', async () => {
    const git = (...args: string[]) =>
      execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], {
        cwd: copy,
        stdio: 'pipe',
      });
    git('init', '-q', '-b', 'one');
    writeFileSync(source(), withMarker('branch one'));
    git('add', 'lambda/http/json.ts');
    git('commit', '-q', '-m', 'one');
    git('checkout', '-q', '-b', 'two');
    writeFileSync(source(), withMarker('branch two'));
    git('commit', '-q', '-am', 'two');
    await served('branch two');
    for (let round = 0; round < 3; round++) {
      git('checkout', '-q', 'one');
      await served('branch one');
      git('checkout', '-q', 'two');
      await served('branch two');
      // A file brought back from another commit, as `git checkout <commit> -- <path>` does.
      git('checkout', '-q', 'one', '--', 'lambda/http/json.ts');
      await served('branch one');
      git('checkout', '-q', 'two', '--', 'lambda/http/json.ts');
      await served('branch two');
    }
  }, 600_000); // a bound against a hang: twelve rebuilds beside CPU burners take minutes
});
