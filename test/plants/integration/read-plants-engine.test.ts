/**
 * GET /plants/{id}, GET /plants and DELETE /plants/{id} against real engines — dynalite, and
 * AWS's DynamoDB Local where Java is available — with no SDK mocks: exact ids, the request
 * count of each operation, and walks over a thousand plants, alone and while plants are
 * created and deleted.
 */
import { randomBytes } from 'node:crypto';
import {
  BatchWriteCommand,
  type BatchWriteCommandInput,
  type BatchWriteCommandOutput,
} from '@aws-sdk/lib-dynamodb';
import { makeDocumentClient } from '../../../lambda/aws/dynamodb';
import { parseJson } from '../../../lambda/http/json';
import { PLANTS_TABLE } from '../../../lambda/aws/tables';
import type { TestStore } from '../../support/store';
import { realEngines, usePlantStore, type PlantOperations } from '../../support/plant-operations';

const ENGINES = realEngines();

type Page = { plants: { id: bigint; name: string; tag?: string }[]; next?: string };

/** Reads a page with the strict parser, so that ids come back as exact bigints. */
function readPage(body: string | undefined): Page {
  return parseJson(body ?? '') as unknown as Page;
}

/** Every page from the first to the one without `next`, calling `between` before each next page. */
async function walk(
  ops: PlantOperations,
  limit: number,
  between: () => Promise<unknown> = async () => undefined,
): Promise<{ ids: bigint[]; pages: number }> {
  const ids: bigint[] = [];
  let cursor: string | undefined;
  let pages = 0;
  do {
    const [answer] = await Promise.all([
      ops.list({ limit: String(limit), ...(cursor === undefined ? {} : { cursor }) }),
      pages === 0 ? undefined : between(),
    ]);
    expect(answer.statusCode).toBe(200);
    const page = readPage(answer.body);
    expect(page.plants.length).toBeLessThanOrEqual(limit);
    ids.push(...page.plants.map((plant) => plant.id));
    cursor = page.next;
    pages++;
  } while (cursor !== undefined);
  return { ids, pages };
}

/** `count` distinct random int64 ids, spread over the whole range. */
function randomIds(count: number, avoid: ReadonlySet<bigint> = new Set()): bigint[] {
  const ids = new Set<bigint>();
  while (ids.size < count) {
    const id = BigInt.asIntN(64, randomBytes(8).readBigUInt64BE());
    if (!avoid.has(id)) ids.add(id);
  }
  return [...ids];
}

/** Writes plants straight into the table, 25 per request, without counting. */
async function seed(store: TestStore, ids: readonly bigint[]): Promise<void> {
  const client = makeDocumentClient(store.engine.clientConfig);
  try {
    for (let i = 0; i < ids.length; i += 25) {
      const batch = ids.slice(i, i + 25).map((id) => ({
        PutRequest: { Item: { id, name: `plant ${id}`, createdAt: 'seed', createdBy: 'seed' } },
      }));
      let unprocessed: BatchWriteCommandInput['RequestItems'] = {
        [PLANTS_TABLE.localName]: batch,
      };
      while (unprocessed && Object.keys(unprocessed).length > 0) {
        const result: BatchWriteCommandOutput = await client.send(
          new BatchWriteCommand({ RequestItems: unprocessed }),
        );
        unprocessed = result.UnprocessedItems;
      }
    }
  } finally {
    client.destroy();
  }
}

describe.each(ENGINES)('on $engine', ({ start }) => {
  describe('one plant at a time', () => {
    let store: TestStore;
    let ops: PlantOperations;
    usePlantStore(start, (s, o) => void ([store, ops] = [s, o]));

    it.each([
      '9007199254740993',
      '9007199254740992',
      '9223372036854775807',
      '-9223372036854775808',
      '0',
    ])('GET %s answers every digit of the id, in one GetItem', async (id) => {
      expect((await ops.create(id, `plant ${id}`, 'tagged')).statusCode).toBe(200);
      store.requests.length = 0;
      const answer = await ops.get(id);
      expect(answer).toMatchObject({
        statusCode: 200,
        body: `{"id":${id},"name":"plant ${id}","tag":"tagged"}`,
      });
      expect(store.requests).toEqual(['GetItemCommand']);
    });

    it('GET of a missing id is 404 in one GetItem', async () => {
      const answer = await ops.get('-42');
      expect(answer).toMatchObject({
        statusCode: 404,
        body: '{"error":404,"message":"no plant with id -42"}',
      });
      expect(store.requests).toEqual(['GetItemCommand']);
    });

    it('GET leaves out a tag the plant does not have', async () => {
      await ops.create('11', 'Untagged');
      expect((await ops.get('11')).body).toBe('{"id":11,"name":"Untagged"}');
    });

    it('DELETE is 204 in one UpdateItem (the tombstone), then 404 (the tombstone stays as it was); the id is free again', async () => {
      await ops.create('12', 'Doomed', 'x');
      store.requests.length = 0;
      expect(await ops.remove('12')).toEqual({ statusCode: 204 });
      expect(store.requests).toEqual(['UpdateItemCommand']);
      // Kept for good (no TTL purgeAt) for its version and a replay's plantDeleted, stripped of
      // the plant's members and out of the tag index; the delete's writeId stays.
      const tombstone = await store.readStored('12');
      expect(tombstone).toEqual({
        id: '12',
        createdAt: expect.any(String),
        version: '2',
        deletedAt: expect.any(String),
        writeId: expect.stringMatching(/^[\w-]{16}$/),
        createId: expect.stringMatching(/^[\w-]{16}$/),
      });
      store.requests.length = 0;
      expect(await ops.remove('12')).toMatchObject({
        statusCode: 404,
        body: '{"error":404,"message":"no plant with id 12"}',
      });
      // The refused write returns the tombstone (DynamoDB) or one read finds it (dynalite).
      expect(store.requests.filter((r) => r !== 'GetItemCommand')).toEqual(['UpdateItemCommand']);
      expect(await store.readStored('12')).toEqual(tombstone);
      expect((await ops.get('12')).statusCode).toBe(404);
      expect(await ops.create('12', 'Reborn')).toMatchObject({ statusCode: 200 });
      expect((await ops.get('12')).body).toBe('{"id":12,"name":"Reborn"}');
    });

    it('DELETE of -2^53 leaves -(2^53+1) in place', async () => {
      await ops.create('-9007199254740992', 'even');
      await ops.create('-9007199254740993', 'odd');
      expect((await ops.remove('-9007199254740992')).statusCode).toBe(204);
      expect(await store.readStored('-9007199254740992')).toMatchObject({
        deletedAt: expect.any(String),
      });
      expect(await store.readStored('-9007199254740993')).toMatchObject({ name: 'odd' });
    });

    it("a page is one Scan (a deleted plant's tombstone counts in its Limit: the page may be short)", async () => {
      const answer = await ops.list({ limit: '3' });
      expect(answer.statusCode).toBe(200);
      expect(readPage(answer.body).plants.length).toBeLessThanOrEqual(3);
      expect(readPage(answer.body).next).toBeDefined();
      expect(store.requests).toEqual(['ScanCommand']);
    });

    it('a cursor of a deleted plant still resumes the walk', async () => {
      await ops.create('13', 'Marker');
      let first = readPage((await ops.list({ limit: '1' })).body);
      // Pages of tombstones (plants deleted above) are empty: the first page with a plant.
      while (first.plants.length === 0) {
        first = readPage((await ops.list({ limit: '1', cursor: first.next! })).body);
      }
      const marker = first.plants[0]!.id;
      expect((await ops.remove(String(marker))).statusCode).toBe(204);
      const rest = readPage((await ops.list({ limit: '100', cursor: first.next! })).body);
      expect(rest.plants.map((plant) => plant.id)).not.toContain(marker);
      await ops.create(String(marker), first.plants[0]!.name);
    });
  });

  describe('walks over 1000 plants', () => {
    let store: TestStore;
    let ops: PlantOperations;
    const ids = randomIds(1000);
    usePlantStore(start, async (s, o) => {
      [store, ops] = [s, o];
      await seed(store, ids);
    });

    // 1000 Scans for pages of 1: a minute on a busy machine; the bounds only guard against a hang.
    it.each([1, 7, 100])(
      'with pages of %i: every plant exactly once, one Scan per page',
      async (limit) => {
        store.requests.length = 0;
        const { ids: seen, pages } = await walk(ops, limit);
        expect(seen).toHaveLength(ids.length);
        expect(new Set(seen)).toEqual(new Set(ids));
        expect(store.requests).toEqual(Array(pages).fill('ScanCommand'));
        expect(pages).toBeGreaterThanOrEqual(Math.ceil(ids.length / limit));
      },
      600_000,
    );

    it('while plants are created and deleted, those there throughout appear exactly once', async () => {
      const doomed = ids.slice(0, 200);
      const kept = new Set(ids.slice(200));
      const born = randomIds(200, new Set(ids));
      const seen: bigint[] = [];
      let step = 0;
      const mutate = async () => {
        const i = step++;
        await Promise.all([
          ...doomed.slice(i * 6, i * 6 + 6).map((id) => ops.remove(String(id))),
          ...born.slice(i * 6, i * 6 + 6).map((id) => ops.create(String(id), 'born')),
        ]);
      };
      const result = await walk(ops, 7, mutate);
      seen.push(...result.ids);
      expect(step).toBeGreaterThanOrEqual(100);
      const counts = new Map<bigint, number>();
      for (const id of seen) counts.set(id, (counts.get(id) ?? 0) + 1);
      for (const id of kept) expect(counts.get(id)).toBe(1);
      expect([...counts.values()].every((n) => n === 1)).toBe(true);
      const known = new Set([...ids, ...born]);
      expect(seen.every((id) => known.has(id))).toBe(true);
    }, 600_000);
  });
});
