/**
 * The client reads an int64 exactly wherever the schema says `format: int64` — a member, an
 * array's items, nested arrays, `additionalProperties` — and every other number as a `number`,
 * whatever its member's name. Through the real client and a real HTTP server on loopback: once
 * with the client as generated from openapi.json, once as generated (by the real generator,
 * client/scripts/generate-types.mjs) from a copy of openapi.json whose page answer also holds
 * int64s under other names, such as a batch read's `"missing":[9007199254740993]`.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PlantStore } from '@plant-store/client';

const ROOT = join(__dirname, '../../..');
const TOKEN = 'pst_BBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB';
const BEYOND_2_53 = 9007199254740993n;

/** A server answering every request with 200 and `answers[path]`. */
let answers: Record<string, string> = {};
let server: Server;
let baseUrl: string;
beforeAll(async () => {
  server = createServer((request, response) => {
    const path = new URL(request.url ?? '/', 'http://x').pathname;
    response.writeHead(200, {
      'content-type': 'application/json',
      etag: '"1"',
      connection: 'close',
    });
    response.end(answers[path] ?? '{}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe('the client generated from openapi.json', () => {
  const client = () => new PlantStore({ baseUrl, token: TOKEN, retry: { retries: 0 } });

  it('reads each answer id, at the root and in the page array, with every digit', async () => {
    answers = {
      '/plants/9007199254740993': `{"id":${BEYOND_2_53},"name":"a"}`,
      '/plants': `{"plants":[{"id":${BEYOND_2_53},"name":"a"},{"id":-9223372036854775808,"name":"b"}]}`,
    };
    await expect(client().getPlant(BEYOND_2_53)).resolves.toEqual({ id: BEYOND_2_53, name: 'a' });
    await expect(client().updatePlant(BEYOND_2_53, { name: 'a' })).resolves.toEqual({
      id: BEYOND_2_53,
      name: 'a',
    });
    await expect(client().listPage()).resolves.toEqual({
      plants: [
        { id: BEYOND_2_53, name: 'a' },
        { id: -(2n ** 63n), name: 'b' },
      ],
    });
  });

  it('reads a create answer, which holds no int64, with no bigint in it', async () => {
    answers = { '/plants': '{"name":"a","id":7}' };
    await expect(client().createPlant({ id: 7, name: 'a' })).resolves.toEqual({
      name: 'a',
      id: 7,
    });
  });
});

describe('a client generated from a document whose page also holds int64s under other names', () => {
  let generated: unknown;
  beforeAll(() => {
    const document = JSON.parse(readFileSync(join(ROOT, 'openapi.json'), 'utf8'));
    const int64 = { type: 'integer', format: 'int64' };
    document.components.schemas.Id = int64;
    Object.assign(document.components.schemas.PlantPage.properties, {
      missing: { type: 'array', items: int64 },
      nested: {
        type: 'object',
        properties: {
          ids: {
            type: 'array',
            items: { type: 'array', items: { $ref: '#/components/schemas/Id' } },
          },
          either: { anyOf: [{ type: 'null' }, int64] },
        },
      },
      totals: { type: 'object', additionalProperties: int64 },
      // Named `id`, but no int64: a number.
      label: { type: 'object', properties: { id: { type: 'number' } } },
    });
    const folder = mkdtempSync(join(tmpdir(), 'client-int64-'));
    try {
      writeFileSync(join(folder, 'openapi.json'), JSON.stringify(document));
      const run = spawnSync(
        process.execPath,
        [
          join(ROOT, 'client/scripts/generate-types.mjs'),
          '--document',
          join(folder, 'openapi.json'),
          '--output',
          join(folder, 'schema.ts'),
        ],
        { encoding: 'utf8' },
      );
      expect(run.stderr).toBe('');
      const text = readFileSync(join(folder, 'schema.ts'), 'utf8');
      generated = JSON.parse(/export const INT64_ANSWERS: Int64Answers = (.*);\n/.exec(text)![1]!);
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });

  /** The real client, its generated schema module that of the changed document. */
  function clientOfDocument(): PlantStore {
    let Client: typeof PlantStore | undefined;
    jest.isolateModules(() => {
      jest.doMock(join(ROOT, 'client/src/schema'), () => ({
        ...jest.requireActual(join(ROOT, 'client/src/schema')),
        INT64_ANSWERS: generated,
      }));
      Client = jest.requireActual<{ PlantStore: typeof PlantStore }>(
        join(ROOT, 'client/src/plant-store'),
      ).PlantStore;
    });
    return new Client!({ baseUrl, token: TOKEN, retry: { retries: 0 } });
  }

  it('keeps every int64 the schema places exact: arrays, nested, any member; not by name', async () => {
    answers = {
      '/plants': [
        '{"plants":[{"id":9007199254740993,"name":"a"}],',
        '"missing":[9007199254740993,9223372036854775807],',
        '"nested":{"ids":[[-9223372036854775808],[9007199254740995]],"either":9007199254740997},',
        '"totals":{"a":9007199254740999,"b":1},',
        '"label":{"id":1.5}}',
      ].join(''),
    };
    const page = (await clientOfDocument().listPage()) as unknown;
    expect(page).toEqual({
      plants: [{ id: BEYOND_2_53, name: 'a' }],
      missing: [BEYOND_2_53, 2n ** 63n - 1n],
      nested: { ids: [[-(2n ** 63n)], [9007199254740995n]], either: 9007199254740997n },
      totals: { a: 9007199254740999n, b: 1n },
      label: { id: 1.5 },
    });
  });

  it('refuses a number where the schema places an int64 that is none', async () => {
    answers = { '/plants': '{"plants":[],"missing":[1,2.5]}' };
    await expect(clientOfDocument().listPage()).rejects.toMatchObject({
      status: 200,
      message: expect.stringContaining('missing[1] 2.5 is not an int64'),
    });
  });
});
