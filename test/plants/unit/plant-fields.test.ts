/**
 * Every mapping of a plant follows the schema's field list (`PLANT_FIELDS`), in-process: for each
 * field, a value at its limit goes through create (answer, table item), a retry (the same is
 * 200 and writes nothing; any one field different is a 409, here also when the table returns the
 * old item with the refusal, as DynamoDB does), GET and the list (decoding the item), the
 * webhook body (from a stream image) and the client's request, and comes back exactly; answers
 * are checked against `openapi.json`'s schemas made strict. The table is a document client
 * kept in memory that stores what DynamoDB would (marshalled, numbers read back as
 * `NumberValue`). The same round trip through `npm start`: test/plants/e2e/round-trip.test.ts.
 */
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { GetCommand, PutCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { marshall, unmarshall } from '@aws-sdk/util-dynamodb';
import { PlantStore } from '@plant-store/client';
import { makeCreatePlantHandler } from '../../../lambda/create-plant/handler';
import { makeGetPlantHandler } from '../../../lambda/get-plant/handler';
import { makeListPlantsHandler } from '../../../lambda/list-plants/handler';
import { parseJson } from '../../../lambda/http/json';
import { takenMessage } from '../../../lambda/create-plant/create-plant';
import type { Plant } from '../../../lambda/plants/schemas';
import { newPlantBody } from '../../../lambda/webhook/message';
import { createPlantEvent, plantBody, plantsEvent } from '../../support/events';
import {
  expectStrictly,
  oneFieldDiffers,
  plantAtLimits,
  requiredOnly,
} from '../../support/plant-fields';

/** A plants table in memory, answering as DynamoDB does; `oldItem` says whether a refused put returns it. */
function memoryTable(oldItem: boolean) {
  const items = new Map<string, Record<string, unknown>>();
  const writes: Record<string, unknown>[] = [];
  // What the document client reads back: marshalled as written, numbers as NumberValue.
  const read = (item: Record<string, unknown>) =>
    unmarshall(marshall(item), { wrapNumbers: true }) as Record<string, unknown>;
  const client = {
    send: async (command: unknown) => {
      if (command instanceof PutCommand) {
        const item = command.input.Item!;
        const key = String(item.id);
        const stored = items.get(key);
        if (stored) {
          throw new ConditionalCheckFailedException({
            message: 'The conditional request failed',
            $metadata: {},
            ...(oldItem ? { Item: marshall(stored) } : {}),
          });
        }
        writes.push(item);
        items.set(key, item);
        return {};
      }
      if (command instanceof GetCommand) {
        const item = items.get(String(command.input.Key!.id));
        return { Item: item && read(item) };
      }
      if (command instanceof ScanCommand) return { Items: [...items.values()].map(read) };
      throw new Error(`unexpected command ${String(command)}`);
    },
  } as unknown as DynamoDBDocumentClient;
  const deps = { plants: client, tableName: 'plants' };
  return {
    items,
    writes,
    create: makeCreatePlantHandler(deps),
    get: makeGetPlantHandler(deps),
    list: makeListPlantsHandler(deps),
  };
}

const ID = 2n ** 63n - 1n;
const PLANTS: [string, Plant][] = [
  ['every field at its limit', plantAtLimits()],
  ['only the required fields, at their limits', requiredOnly()],
];

describe.each([
  ['the refusal returns the old item (DynamoDB)', true],
  ['the refusal does not (dynalite): read again', false],
])('%s', (_, oldItem) => {
  describe.each(PLANTS)('%s', (_, plant) => {
    const table = memoryTable(oldItem);
    const body = plantBody(String(ID), plant);
    const create = async (text: string) => {
      const answer = await table.create(createPlantEvent({ body: text }));
      return { status: answer.statusCode, json: parseJson(answer.body ?? '') };
    };

    it('is created: the answer is its members, the item its members, id and audit', async () => {
      const answer = await create(body);
      expect(answer).toEqual({ status: 200, json: plant });
      expectStrictly('Plant', answer.json);
      expect(table.writes).toHaveLength(1);
      const { createdAt, createdBy, createId, ...item } = table.writes[0]!;
      expect(item).toEqual({ id: ID, ...plant });
      expect(typeof createdAt).toBe('string');
      expect(typeof createdBy).toBe('string');
      expect(typeof createId).toBe('string');
    });

    it('is answered by GET and the list exactly', async () => {
      const got = await table.get(
        plantsEvent({ method: 'GET', route: '/plants/{id}', pathParameters: { id: String(ID) } }),
      );
      const stored = parseJson(got.body ?? '');
      expect(stored).toEqual({ id: ID, ...plant });
      expectStrictly('StoredPlant', stored);
      const listed = await table.list(plantsEvent({ method: 'GET', route: '/plants' }));
      const page = parseJson(listed.body ?? '');
      expect(page).toEqual({ plants: [{ id: ID, ...plant }] });
      expectStrictly('PlantPage', page);
    });

    it('a retry of the same plant is 200 and writes nothing', async () => {
      expect(await create(body)).toEqual({ status: 200, json: plant });
      expect(table.writes).toHaveLength(1);
    });

    it.each(oneFieldDiffers(plant))('a retry with %s is a 409', async (_, other) => {
      expect(await create(plantBody(String(ID), other))).toEqual({
        status: 409,
        json: {
          error: 409n,
          message: takenMessage(ID),
        },
      });
      expect(table.writes).toHaveLength(1);
    });

    it('is the webhook body: its id with every digit and its members, nothing else', () => {
      const image = marshall(table.items.get(String(ID))!);
      const { plantId, body: webhookBody } = newPlantBody(image);
      expect(plantId).toBe(String(ID));
      const delivered = parseJson(webhookBody);
      expect(delivered).toEqual({ id: ID, ...plant });
      expectStrictly('NewPlant', delivered);
    });

    it('is what the client sends', async () => {
      const sent: string[] = [];
      const client = new PlantStore({
        baseUrl: 'https://plants.test',
        token: 'pst_test',
        fetch: async (request) => {
          sent.push(await request.text());
          return new Response(JSON.stringify(plant), {
            headers: { 'content-type': 'application/json' },
          });
        },
      });
      await expect(client.createPlant({ id: ID, ...plant })).resolves.toEqual(plant);
      expect(sent).toHaveLength(1);
      const request = parseJson(sent[0]!);
      expect(request).toEqual({ id: ID, ...plant });
      expectStrictly('NewPlant', request);
    });
  });
});
