/**
 * A plant's members end to end, driven by the schema's field list (`PLANT_FIELDS` in
 * lambda/plants/schemas.ts), on the local runtime as `npm start` runs it: for every field, a
 * value at its limit goes through create → its answer → GET → a list page → the DynamoDB item →
 * the webhook body → the client, and comes back exactly; a retry that differs in any one field
 * is a 409 and changes nothing. Every answer and the webhook body are checked against
 * `openapi.json`'s schemas made strict, so a member dropped or added by any mapping fails here.
 * A field added to the schema is covered with no edit to this test.
 */
import { DynamoDBClient, GetItemCommand } from '@aws-sdk/client-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import { PlantStore } from '@plant-store/client';
import { parseJson } from '../../../lambda/http/json';
import { takenMessage } from '../../../lambda/create-plant/create-plant';
import type { Plant } from '../../../lambda/plants/schemas';
import { PLANTS_TABLE } from '../../../lambda/aws/tables';
import { cliEnvironment, sendAsDev, useLocalService } from '../../support/local-service';
import {
  expectStrictly,
  oneFieldDiffers,
  plantAtLimits,
  requiredOnly,
} from '../../support/plant-fields';
import { runCommand } from '../../support/run-cli';
import { startReceiver, until, type Receiver } from '../../support/webhook-receiver';

const service = useLocalService('round-trip');

/** The plants of the round trip: ids at the int64 edges and past 2^53, each made from the schema. */
const BY_HTTP: [bigint, Plant][] = [
  [2n ** 63n - 1n, plantAtLimits()],
  [-(2n ** 63n), requiredOnly()],
];
const BY_CLIENT: [bigint, Plant] = [2n ** 53n + 1n, plantAtLimits(2)];
const ALL = [...BY_HTTP, BY_CLIENT];

/** An answer of the API, its body parsed with every digit of its integers. */
async function send(method: string, path: string, body?: string) {
  const { status, text } = await sendAsDev(service, method, path, body);
  return { status, json: text ? parseJson(text) : undefined };
}

/** The create body: the id with every digit, then the plant's members. */
const bodyOf = (id: bigint, plant: Plant) =>
  JSON.stringify(plant).replace('{', `{"id":${id}${Object.keys(plant).length ? ',' : ''}`);

let receiver: Receiver;
let raw: DynamoDBClient;
let client: PlantStore;

beforeAll(async () => {
  receiver = await startReceiver();
  const added = await runCommand(
    'webhook',
    ['add', '--url', receiver.url],
    cliEnvironment(service),
  );
  expect(added.code).toBe(0);
  receiver.secret = added.stdout.trim();
  raw = new DynamoDBClient(service.engineClientConfig);
  client = new PlantStore({ baseUrl: service.url, token: service.devToken });
});

afterAll(async () => {
  raw?.destroy();
  await receiver?.close();
});

describe.each(BY_HTTP)('the plant %p, created over HTTP', (id, plant) => {
  it('is created: the answer is its members, exactly', async () => {
    const answer = await send('POST', '/plants', bodyOf(id, plant));
    expect(answer).toEqual({ status: 200, json: plant });
    expectStrictly('Plant', answer.json);
  });

  it('a retry of it is 200 with the same answer', async () => {
    expect(await send('POST', '/plants', bodyOf(id, plant))).toEqual({ status: 200, json: plant });
  });

  it.each(oneFieldDiffers(plant))('a retry with %s is a 409', async (_, other) => {
    expect(await send('POST', '/plants', bodyOf(id, other))).toEqual({
      status: 409,
      json: {
        error: 409n,
        message: takenMessage(id),
      },
    });
  });
});

it('the client creates a plant with every field and answers its members', async () => {
  const [id, plant] = BY_CLIENT;
  const answer = await client.createPlant({ id, ...plant });
  expect(answer).toEqual(plant);
  expectStrictly('Plant', answer);
});

describe.each(ALL)('the plant %p, stored', (id, plant) => {
  it('GET answers it exactly, nothing changed by the retries', async () => {
    const answer = await send('GET', `/plants/${id}`);
    expect(answer).toEqual({ status: 200, json: { id, ...plant } });
    expectStrictly('StoredPlant', answer.json);
  });

  it('a list page answers it exactly', async () => {
    const found: unknown[] = [];
    let cursor: string | undefined;
    do {
      const query = cursor === undefined ? '' : `&cursor=${encodeURIComponent(cursor)}`;
      const page = await send('GET', `/plants?limit=100${query}`);
      expect(page.status).toBe(200);
      expectStrictly('PlantPage', page.json);
      const { plants, next } = page.json as { plants: { id: bigint }[]; next?: string };
      found.push(...plants.filter((stored) => stored.id === id));
      cursor = next;
    } while (cursor !== undefined);
    expect(found).toEqual([{ id, ...plant }]);
  });

  it('the DynamoDB item is its id, its members and the audit attributes, nothing else', async () => {
    const { Item } = await raw.send(
      new GetItemCommand({
        TableName: PLANTS_TABLE.localName,
        Key: { id: { N: String(id) } },
        ConsistentRead: true,
      }),
    );
    // Each attribute as DynamoDB holds it: a number's exact decimal text, a string, a boolean.
    const { createdAt, createdBy, createId, ...members } = Item!;
    expect(members).toEqual(marshall({ id, ...plant }));
    expect(createdAt).toEqual({ S: expect.any(String) });
    expect(createdBy).toEqual({ S: expect.any(String) });
    expect(createId).toEqual({ S: expect.stringMatching(/^[\w-]{16}$/) });
  });

  it('the client reads it exactly', async () => {
    await expect(client.getPlant(id)).resolves.toEqual({ id, ...plant });
  });

  it('the webhook body is the plant exactly, delivered once, signed', async () => {
    const mine = () =>
      receiver.received.filter((r) => (parseJson(r.body) as { id?: unknown }).id === id);
    await until(() => mine().length > 0, `the webhook of plant ${id}`);
    const [delivery, ...more] = mine();
    expect(more).toEqual([]);
    expect(delivery!.verified).toBe(true);
    const body = parseJson(delivery!.body);
    expect(body).toEqual({ id, ...plant });
    expectStrictly('NewPlant', body);
  });
});

it('the client lists every plant of the round trip exactly', async () => {
  const listed = new Map<bigint, unknown>();
  for await (const stored of client.listPlants()) listed.set(stored.id, stored);
  for (const [id, plant] of ALL) expect(listed.get(id)).toEqual({ id, ...plant });
});
