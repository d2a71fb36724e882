/**
 * The adversarial corpus through the create-plant handler in-process: every body at the size
 * limit gets its exact answer. How long each takes is `npm run bench -- --phases parse`'s
 * business, with its CPU budget (`lib/lab/bench/parse-time.ts`): a timed assertion here would
 * share the machine with every other suite.
 */
import type { PutCommand, DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { makeCreatePlantHandler } from '../../../lambda/create-plant/handler';
import { MAX_BODY_BYTES } from '../../../lambda/create-plant/request';
import { ADVERSARIAL_BODIES } from '../../support/adversarial-bodies';
import { createPlantEvent } from '../../support/events';

function harness() {
  const sent: PutCommand[] = [];
  const plants = {
    send: async (command: PutCommand) => {
      sent.push(command);
      return {};
    },
  } as unknown as DynamoDBDocumentClient;
  return { handler: makeCreatePlantHandler({ plants, tableName: 'plants' }), sent };
}

it('names are unique and every body is at the limit (the 413 case one byte over)', () => {
  expect(new Set(ADVERSARIAL_BODIES.map((b) => b.name)).size).toBe(ADVERSARIAL_BODIES.length);
  for (const { name, body, status } of ADVERSARIAL_BODIES) {
    const expected = status === 413 ? MAX_BODY_BYTES + 1 : MAX_BODY_BYTES;
    expect([name, Buffer.byteLength(body, 'utf8')]).toEqual([name, expected]);
  }
});

it('one id always stores one plant, so the whole list can share a store', () => {
  const byId = new Map<bigint, string>();
  for (const corpus of ADVERSARIAL_BODIES) {
    if (corpus.status !== 200) continue;
    const { id, ...plant } = corpus.plant;
    const seen = byId.get(id) ?? JSON.stringify(plant);
    expect([corpus.name, JSON.stringify(plant)]).toEqual([corpus.name, seen]);
    byId.set(id, seen);
  }
});

describe.each(ADVERSARIAL_BODIES.map((b) => [b.name, b] as const))('%s', (_, corpus) => {
  it(`answers ${corpus.status}`, async () => {
    const { handler, sent } = harness();
    const answer = await handler(createPlantEvent({ body: corpus.body }));
    const json = JSON.parse(answer.body ?? 'null') as Record<string, unknown>;
    expect(answer.statusCode).toBe(corpus.status);
    if (corpus.status === 200) {
      const { id, ...plant } = corpus.plant;
      expect(json).toEqual(plant);
      expect(sent).toHaveLength(1);
      expect(sent[0]!.input.Item).toMatchObject({ id, ...plant });
    } else {
      expect(json.error).toBe(corpus.status);
      expect(json.message).toMatch(corpus.message);
      expect(sent).toHaveLength(0);
    }
  });
});
