/**
 * The local runtime opened on a data directory written before the byTag index existed (1.1.0's
 * plants table: no index), through real parts: the engine on that directory, then `startLocal`
 * (what `npm start` runs) on it. The index is added and the stored plants are indexed while the
 * API serves: meanwhile a list by tag answers 503 with Retry-After (never a partial list), every
 * other operation answers as before and nothing is lost; once built, the list has every tagged
 * plant, old and new, in id order; a second open builds nothing again. A build cut short by a
 * close is finished by the next open.
 */
import { DescribeTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { makeDocumentClient } from '../../../lambda/aws/dynamodb';
import { PLANTS_BY_TAG_INDEX, PLANTS_TABLE, TABLES } from '../../../lambda/aws/tables';
import { INDEX_BUILDING_RETRY_AFTER_SECONDS } from '../../../lambda/plants/index-building';
import { startEngine } from '../../../lib/local/dynamodb/engine';
import { startLocal, type LocalService } from '../../../lib/local/runtime';
import { sendAsDev } from '../../support/local-service';

const MIN = '-9223372036854775808';
const MAX = '9223372036854775807';
const dirs: string[] = [];
afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

/** The tables as 1.1.0 created them: the plants table without its index. */
const RELEASED_TABLES = TABLES.map((table) =>
  table === PLANTS_TABLE ? { ...PLANTS_TABLE, indexes: [] } : table,
);

/** A data directory as 1.1.0 left it, holding `items` in its plants table. */
async function releasedDataDir(items: Record<string, unknown>[]): Promise<string> {
  const dataDir = mkdtempSync(join(tmpdir(), 'plant-store-upgrade-'));
  dirs.push(dataDir);
  const engine = await startEngine({ dataDir: join(dataDir, 'db'), tables: RELEASED_TABLES });
  const client = makeDocumentClient(engine.clientConfig);
  for (const item of items) {
    await client.send(new PutCommand({ TableName: PLANTS_TABLE.localName, Item: item }));
  }
  client.destroy();
  await engine.close();
  return dataDir;
}

const open = (dataDir: string, holdIndexBuilds?: Promise<void>) =>
  startLocal({
    port: 0,
    dbPort: 0,
    dataDir,
    memory: false,
    authCacheTtlSeconds: 300,
    log: () => undefined,
    holdIndexBuilds,
  });

/** The index's status as DescribeTable tells it. */
async function indexStatus(service: LocalService) {
  const client = new DynamoDBClient(service.engineClientConfig);
  const { Table } = await client.send(new DescribeTableCommand({ TableName: 'plants' }));
  client.destroy();
  return Table?.GlobalSecondaryIndexes?.map((i) => [i.IndexName, i.IndexStatus, i.Backfilling]);
}

/** Lists by tag until the build is over (each answer 503 meanwhile), then answers the 200. */
async function listWhenBuilt(service: LocalService, tag: string) {
  for (;;) {
    const answer = await sendAsDev(service, 'GET', `/plants?tag=${tag}`);
    if (answer.status !== 503) return answer;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const audit = { createdAt: '2026-01-01T00:00:00.000Z', createdBy: 'tok_released' };
const RELEASED_ITEMS = [
  { id: BigInt(MAX), name: 'last', tag: 'aroid', ...audit },
  { id: BigInt(MIN), name: 'first', tag: 'aroid', ...audit },
  { id: 9007199254740993n, name: 'odd', tag: 'aroid', ...audit },
  { id: 5n, name: 'fern', tag: 'fern', ...audit },
  { id: 6n, name: 'untagged', ...audit },
  { id: 7n, name: 'marked', tag: 'aroid', deletedAt: '2026-01-02T00:00:00.000Z', ...audit },
  // 1.1.0 stored an empty tag as it came; an index cannot key on it.
  { id: 9n, name: 'blank', tag: '', ...audit },
];

it('a 1.1.0 data directory: 503 while the index builds, nothing lost, then every tagged plant', async () => {
  const dataDir = await releasedDataDir(RELEASED_ITEMS);
  let release = () => undefined as void;
  const held = new Promise<void>((resolve) => (release = resolve));
  const service = await open(dataDir, held);
  try {
    expect(await indexStatus(service)).toEqual([[PLANTS_BY_TAG_INDEX.name, 'CREATING', true]]);
    const building = await fetch(`${service.url}/plants?tag=aroid`, {
      headers: { authorization: `Bearer ${service.devToken}` },
    });
    expect(building.status).toBe(503);
    expect(building.headers.get('retry-after')).toBe(String(INDEX_BUILDING_RETRY_AFTER_SECONDS));
    expect(await building.json()).toMatchObject({ error: 503 });
    // Everything else answers as before, and a write made meanwhile is indexed by itself.
    expect(await sendAsDev(service, 'GET', `/plants/${MAX}`)).toEqual({
      status: 200,
      text: `{"id":${MAX},"name":"last","tag":"aroid"}`,
    });
    expect(
      (await sendAsDev(service, 'POST', '/plants', '{"id":8,"name":"new","tag":"aroid"}')).status,
    ).toBe(200);
    const plain = await sendAsDev(service, 'GET', '/plants?limit=100');
    expect(plain.status).toBe(200);
    for (const id of [MAX, MIN, '9007199254740993', '5', '6', '8']) {
      expect(plain.text).toContain(`{"id":${id},`);
    }
    release();
    expect(await listWhenBuilt(service, 'aroid')).toEqual({
      status: 200,
      text: `{"plants":[{"id":${MIN},"name":"first","tag":"aroid"},{"id":8,"name":"new","tag":"aroid"},{"id":9007199254740993,"name":"odd","tag":"aroid"},{"id":${MAX},"name":"last","tag":"aroid"}]}`,
    });
    expect(await sendAsDev(service, 'GET', '/plants?tag=fern')).toEqual({
      status: 200,
      text: '{"plants":[{"id":5,"name":"fern","tag":"fern"}]}',
    });
    expect(await indexStatus(service)).toEqual([[PLANTS_BY_TAG_INDEX.name, 'ACTIVE', undefined]]);
    // The empty tag is in no list, read as it was, and changed as any plant is.
    expect(await sendAsDev(service, 'PATCH', '/plants/9', '{"name":"renamed"}')).toEqual({
      status: 200,
      text: '{"id":9,"name":"renamed","tag":""}',
    });
    expect((await sendAsDev(service, 'GET', '/plants/9')).text).toBe(
      '{"id":9,"name":"renamed","tag":""}',
    );
  } finally {
    await service.close();
  }
  // Opened again: the index is there, nothing to build, the list answers at once.
  const again = await open(dataDir, new Promise(() => undefined));
  try {
    expect(await indexStatus(again)).toEqual([[PLANTS_BY_TAG_INDEX.name, 'ACTIVE', undefined]]);
    expect((await sendAsDev(again, 'GET', '/plants?tag=aroid')).status).toBe(200);
  } finally {
    await again.close();
  }
});

it('a build cut short by a close is finished by the next open', async () => {
  const dataDir = await releasedDataDir(RELEASED_ITEMS);
  const first = await open(dataDir, new Promise(() => undefined));
  expect((await sendAsDev(first, 'GET', '/plants?tag=fern')).status).toBe(503);
  await first.close();
  const second = await open(dataDir);
  try {
    expect(await listWhenBuilt(second, 'fern')).toEqual({
      status: 200,
      text: '{"plants":[{"id":5,"name":"fern","tag":"fern"}]}',
    });
  } finally {
    await second.close();
  }
});
