/**
 * `npm run state` against a running runtime (`startLocal`, as `npm start` runs it), found as the
 * other CLIs find it: `save` keeps every table's items, `reset` empties the plants and the
 * subscribers (the tokens too with `--tokens`), `load` puts back exactly what was saved (ids,
 * versions, tombstones, the subscriber's sealed secret, the tokens), and `seed` creates plants
 * checked by POST /plants' rules, refusing the whole file, the entry named, when one is invalid.
 * Every plant is read back through the API.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DynamoDBClient, ScanCommand, type AttributeValue } from '@aws-sdk/client-dynamodb';
import { TABLES } from '../../../lambda/aws/tables';
import { cliEnvironment, sendAsDev, useLocalService } from '../../support/local-service';
import { runCommand } from '../../support/run-cli';

// No cached decisions: a token removed by reset --tokens is refused on the next request.
const service = useLocalService('state', { authCacheTtlSeconds: 0 });
const state = (...args: string[]) => runCommand('state', args, cliEnvironment(service));
const BIG = '9007199254740993';

/**
 * What the deliverer records on its own, at any time, about deliveries to the test's subscriber
 * (a `load` puts plants back, and the stream delivers them): its pace grants on the subscriber's
 * item and its attempts item. No `state` command writes them: the comparisons leave them out.
 */
const DELIVERY_RECORD = /^(p[su]\d+|paceFloor)$/;
const withoutDeliveryRecords = (items: Record<string, AttributeValue>[]) =>
  items
    .filter((item) => !item.subscriberId?.S?.endsWith('#attempts'))
    .map((item) =>
      Object.fromEntries(Object.entries(item).filter(([name]) => !DELIVERY_RECORD.test(name))),
    );

/** Every table's items, each table sorted, as the engine keeps them (DynamoDB JSON). */
async function everything(): Promise<Record<string, Record<string, AttributeValue>[]>> {
  const client = new DynamoDBClient(service.engineClientConfig);
  const all: Record<string, Record<string, AttributeValue>[]> = {};
  for (const table of TABLES) {
    const { Items = [] } = await client.send(new ScanCommand({ TableName: table.localName }));
    all[table.localName] = withoutDeliveryRecords(Items).sort((a, b) =>
      JSON.stringify(a).localeCompare(JSON.stringify(b)),
    );
  }
  client.destroy();
  return all;
}

const list = async () => (await sendAsDev(service, 'GET', '/plants')).text;

let saved: Awaited<ReturnType<typeof everything>>;

beforeAll(async () => {
  const post = (body: string) => sendAsDev(service, 'POST', '/plants', body);
  expect((await post(`{"id":${BIG},"name":"Monstera","tag":"aroid"}`)).status).toBe(200);
  expect((await post('{"id":2,"name":"Fern"}')).status).toBe(200);
  expect((await sendAsDev(service, 'PATCH', '/plants/2', '{"tag":"shade"}')).status).toBe(200);
  expect((await post('{"id":3,"name":"Gone"}')).status).toBe(200);
  expect((await sendAsDev(service, 'DELETE', '/plants/3')).status).toBe(204);
  const added = await runCommand(
    'webhook',
    ['add', '--url', 'http://127.0.0.1:9/hook'],
    cliEnvironment(service),
  );
  expect(added.code).toBe(0);
  saved = await everything();
});

it('save keeps everything under a name in the data directory (found through the ports npm start recorded)', async () => {
  const found = await runCommand('state', ['save', 'snap'], {
    PLANT_STORE_DATA_DIR: service.dataDir,
    PLANT_STORE_DB_PORT: undefined,
  });
  expect(found).toMatchObject({ code: 0, stdout: '' });
  expect(found.stderr).toMatch(
    /^saved snap: 3 items in plants, 1 item in tokens, 1 item in subscriptions, 0 messages on /,
  );
  expect(existsSync(join(service.dataDir, 'states', 'snap.json'))).toBe(true);
  expect(await everything()).toEqual(saved);
});

it('reset empties the plants and the subscribers and keeps the tokens', async () => {
  const reset = await state('reset');
  expect(reset).toMatchObject({ code: 0 });
  expect(reset.stderr).not.toContain('tok_dev');
  const after = await everything();
  expect(after.plants).toEqual([]);
  expect(after.subscriptions).toEqual([]);
  expect(after.tokens).toEqual(saved.tokens);
  expect(await list()).toBe('{"plants":[]}');
});

it('load puts back exactly what was saved: ids, versions, tombstones, sealed secrets, tokens', async () => {
  expect(await state('load', 'snap')).toMatchObject({ code: 0 });
  expect(await everything()).toEqual(saved);
  expect((await sendAsDev(service, 'GET', `/plants/${BIG}`)).text).toBe(
    `{"id":${BIG},"name":"Monstera","tag":"aroid"}`,
  );
  expect((await sendAsDev(service, 'GET', '/plants/3')).status).toBe(404);
  const listed = await list();
  expect(listed).toContain(`{"id":${BIG},"name":"Monstera","tag":"aroid"}`);
  expect(listed).toContain('{"id":2,"name":"Fern","tag":"shade"}');
});

it('load refuses a state with one item missing its key, naming it, and changes nothing', async () => {
  const states = join(service.dataDir, 'states');
  const snap = JSON.parse(readFileSync(join(states, 'snap.json'), 'utf8')) as {
    tables: Record<string, Record<string, unknown>[]>;
  };
  delete snap.tables.subscriptions![0]!.subscriberId;
  writeFileSync(join(states, 'keyless.json'), JSON.stringify(snap));
  const before = await everything();
  expect(await state('load', 'keyless')).toEqual({
    code: 1,
    stdout: '',
    stderr: `state: ${join(states, 'keyless.json')}: subscriptions item 1 has no subscriberId of type S; nothing was loaded\n`,
  });
  expect(await everything()).toEqual(before);
  expect(await state('load', 'snap')).toMatchObject({ code: 0 });
  expect(await everything()).toEqual(saved);
});

it('reset --tokens removes the tokens too (the dev token is refused, as it says); load brings them back', async () => {
  const reset = await state('reset', '--tokens');
  expect(reset).toMatchObject({ code: 0 });
  // It names the dev token and the setting whose cache keeps refusing it after it comes back.
  expect(reset.stderr.split('\n')[1]).toMatch(/^reset: .*tok_dev.*PLANT_STORE_AUTH_CACHE_TTL/);
  expect((await sendAsDev(service, 'GET', '/plants')).status).toBe(403);
  expect(await state('load', 'snap')).toMatchObject({ code: 0 });
  expect((await sendAsDev(service, 'GET', '/plants')).status).toBe(200);
});

it('seed refuses a file with one invalid entry whole, naming it, and changes nothing', async () => {
  const file = join(service.dataDir, 'bad-seed.json');
  writeFileSync(file, '[{"id":10,"name":"Ivy"},{"id":11,"name":"Pothos","tag":7}]');
  const refused = await state('seed', file);
  expect(refused.code).toBe(1);
  expect(refused.stderr).toBe(
    `state: ${file}: entry 2 (id 11): tag: must be a string; nothing was seeded\n`,
  );
  expect(await everything()).toEqual(saved);
});

it('seed refuses an id a plant holds, and creates a valid file by the create rules, ids exact', async () => {
  const taken = join(service.dataDir, 'taken-seed.json');
  writeFileSync(taken, `[{"id":20,"name":"Ivy"},{"id":${BIG},"name":"Again"}]`);
  const refused = await state('seed', taken);
  expect(refused.code).toBe(1);
  expect(refused.stderr).toContain(
    `entry 2 (id ${BIG}): a plant holds that id; nothing was seeded`,
  );
  expect(await everything()).toEqual(saved);

  const file = join(service.dataDir, 'seed.json');
  writeFileSync(
    file,
    '{"plants":[{"id":9223372036854775807,"name":"Ivy","tag":"vine"},{"id":3,"name":"Back"}]}',
  );
  expect(await state('seed', file)).toMatchObject({
    code: 0,
    stderr: `seeded 2 plants from ${file}\n`,
  });
  expect((await sendAsDev(service, 'GET', '/plants/9223372036854775807')).text).toBe(
    '{"id":9223372036854775807,"name":"Ivy","tag":"vine"}',
  );
  expect((await sendAsDev(service, 'GET', '/plants/3')).text).toBe('{"id":3,"name":"Back"}');
});

it('says what is wrong in one line: usage mistakes exit 2, an unknown state 1', async () => {
  expect(await state('load')).toEqual({
    code: 2,
    stdout: '',
    stderr: 'state: load needs exactly one name (see npm run state -- --help)\n',
  });
  expect(await state('save', '../x')).toMatchObject({ code: 2 });
  expect((await state('load', 'nope')).stderr).toBe(
    `state: no state nope in ${join(service.dataDir, 'states')} (saved: keyless, snap)\n`,
  );
  expect(await state('--help')).toMatchObject({ code: 0 });
});

it("load of a state saved before scopes had a revision keeps the dev token's changes", async () => {
  const states = join(service.dataDir, 'states');
  const snap = JSON.parse(readFileSync(join(states, 'snap.json'), 'utf8')) as {
    tables: Record<string, Record<string, unknown>[]>;
  };
  for (const token of snap.tables.tokens!) delete token.scopesRevision;
  writeFileSync(join(states, 'before-revisions.json'), JSON.stringify(snap));
  expect(await state('load', 'before-revisions')).toMatchObject({ code: 0 });
  expect((await sendAsDev(service, 'PATCH', '/plants/2', '{"tag":"sun"}')).status).toBe(200);
});
