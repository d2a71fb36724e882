/**
 * The events of every change: which event a stream record is, the bodies and webhook-ids each
 * kind of subscriber gets (newPlant-only subscribers: exactly as before events existed), the
 * `--events` parser, and what a replay still finds in the table.
 */
import type { DynamoDBRecord } from 'aws-lambda';
import { recordDeliveries } from '../../../lambda/fan-out/fan-out';
import { deliveriesOf } from '../../../lambda/webhook/deliveries';
import { DEFAULT_EVENTS, eventsOfItem, parseEvents, writeOf } from '../../../lambda/webhook/events';
import { newPlantBody } from '../../../lambda/webhook/message';
import { EVENT_BODIES } from '../../../lambda/webhook/event-bodies';
import * as v from 'valibot';
import { webhookIdOf } from '../../../lambda/webhook/signature';
import type { Subscriber } from '../../../lambda/webhook/subscriptions-table';
import { passesStreamFilter } from '../../../lib/definitions/webhooks';
import { replayedWrites } from '../../../lib/operator/webhook/replay';
import { buildDocument } from '../../../lib/generators/openapi/document';

const MAX = '9223372036854775807';
const MIN = '-9223372036854775808';
const CREATED = '2026-01-01T00:00:00.000Z';
const CHANGED = '2026-01-02T00:00:00.000Z';

/** A plant's item in DynamoDB JSON, as the stream's NewImage carries it. */
function image(extra: Record<string, unknown> = {}, id = MAX): Record<string, unknown> {
  return {
    id: { N: id },
    name: { S: 'fern' },
    createdAt: { S: CREATED },
    createdBy: { S: 't' },
    ...extra,
  };
}
const changed = (version: number) => ({
  version: { N: String(version) },
  updatedAt: { S: CHANGED },
});
const marked = (version: number) => ({
  version: { N: String(version) },
  deletedAt: { S: CHANGED },
});

const plain: Subscriber = {
  subscriberId: 'sub_plain',
  url: 'https://p.example/',
  name: 'p',
  createdAt: '',
};
const all: Subscriber = {
  subscriberId: 'sub_all',
  url: 'https://a.example/',
  name: 'a',
  createdAt: '',
  events: ['newPlant', 'plantUpdated', 'plantDeleted'],
};
const deletesOnly: Subscriber = { ...all, subscriberId: 'sub_del', events: ['plantDeleted'] };

describe('which event a write is', () => {
  it('classifies from the record kind and the new image alone', () => {
    expect(writeOf('INSERT', image())).toEqual({
      event: 'newPlant',
      version: 1,
      createdAt: CREATED,
      storedAt: CREATED,
    });
    // A create over a deleted plant's tombstone is a MODIFY with no version and no mark.
    expect(writeOf('MODIFY', image()).event).toBe('newPlant');
    expect(writeOf('MODIFY', image({ version: { N: '1' } })).event).toBe('newPlant');
    expect(writeOf('MODIFY', image(changed(3)))).toEqual({
      event: 'plantUpdated',
      version: 3,
      createdAt: CREATED,
      storedAt: CHANGED,
    });
    // Created again over a tombstone at 4: its first version is 5 (newPlant), then a change.
    const again = { version: { N: '5' }, firstVersion: { N: '5' } };
    expect(writeOf('MODIFY', image(again))).toMatchObject({ event: 'newPlant', version: 5 });
    expect(writeOf('MODIFY', image({ ...changed(6), firstVersion: { N: '5' } }))).toMatchObject({
      event: 'plantUpdated',
      version: 6,
    });
    expect(writeOf('MODIFY', image(marked(4)))).toEqual({
      event: 'plantDeleted',
      version: 4,
      createdAt: CREATED,
      storedAt: CHANGED,
    });
  });

  it('passes INSERT and MODIFY records to the fan-out, never a REMOVE, which is owed nothing', () => {
    expect(
      ['INSERT', 'MODIFY', 'REMOVE'].map((eventName) => passesStreamFilter({ eventName })),
    ).toEqual([true, true, false]);
    const remove = {
      eventName: 'REMOVE',
      dynamodb: { Keys: { id: { N: '1' } } },
    } as DynamoDBRecord;
    expect(recordDeliveries(remove, [all])).toEqual([]);
  });

  it('sets aside a MODIFY whose image is not a plant, or that has none', () => {
    const bad = {
      eventName: 'MODIFY',
      dynamodb: { NewImage: { id: { N: '1.5' }, name: { S: 'x' } } },
    };
    expect(recordDeliveries(bad as DynamoDBRecord, [all])).toEqual({
      poison: expect.stringMatching(/not a stored plant/),
    });
    expect(
      recordDeliveries({ eventName: 'MODIFY', dynamodb: {} } as DynamoDBRecord, [all]),
    ).toEqual({
      poison: 'the MODIFY record has no NewImage',
    });
  });
});

describe('what each subscriber receives', () => {
  it('gives a newPlant-only subscriber exactly the body and webhook-id it always had, and nothing for changes', () => {
    const create = deliveriesOf(writeOf('INSERT', image()), image(), [plain]);
    expect(create).toEqual([
      {
        webhookId: webhookIdOf('sub_plain', MAX, CREATED),
        subscriberId: 'sub_plain',
        plantId: MAX,
        body: `{"id":${MAX},"name":"fern"}`,
        storedAt: CREATED,
      },
    ]);
    expect(create[0]!.body).toBe(newPlantBody(image()).body);
    expect(deliveriesOf(writeOf('MODIFY', image(changed(2))), image(changed(2)), [plain])).toEqual(
      [],
    );
    expect(deliveriesOf(writeOf('MODIFY', image(marked(2))), image(marked(2)), [plain])).toEqual(
      [],
    );
  });

  it('gives a subscriber of more typed bodies a receiver can order, with ids that name the version', () => {
    const tagged = image({ tag: { S: 'herb' } }, MIN);
    const [create] = deliveriesOf(writeOf('INSERT', tagged), tagged, [all]);
    expect(create!.body).toBe(
      `{"type":"newPlant","id":${MIN},"name":"fern","tag":"herb","createdAt":"${CREATED}","version":1}`,
    );
    // A newPlant keeps the id a newPlant-only subscriber's would have.
    expect(create!.webhookId).toBe(webhookIdOf('sub_all', MIN, CREATED));
    const update = image({ ...changed(2), name: { S: 'fern 2' } }, MIN);
    const [updated] = deliveriesOf(writeOf('MODIFY', update), update, [all]);
    expect(updated!.body).toBe(
      `{"type":"plantUpdated","id":${MIN},"name":"fern 2","createdAt":"${CREATED}","version":2}`,
    );
    expect(updated!.webhookId).toBe(webhookIdOf('sub_all', MIN, `${CREATED}#2`));
    expect(updated!.storedAt).toBe(CHANGED);
    const mark = image(marked(3), MIN);
    const deliveries = deliveriesOf(writeOf('MODIFY', mark), mark, [plain, all, deletesOnly]);
    expect(deliveries.map((d) => [d.subscriberId, d.body])).toEqual([
      ['sub_all', `{"type":"plantDeleted","id":${MIN},"createdAt":"${CREATED}","version":3}`],
      ['sub_del', `{"type":"plantDeleted","id":${MIN},"createdAt":"${CREATED}","version":3}`],
    ]);
    const ids = [create, updated, deliveries[0]].map((d) => d!.webhookId);
    expect(new Set(ids).size).toBe(3);
  });

  it('reads a tombstone that keeps only its key, version and times: a plantDeleted, also in a replay', () => {
    const tombstone = { id: { N: MIN }, createdAt: { S: CREATED }, ...marked(7) };
    const write = writeOf('MODIFY', tombstone);
    expect(write).toEqual({
      event: 'plantDeleted',
      version: 7,
      createdAt: CREATED,
      storedAt: CHANGED,
    });
    expect(deliveriesOf(write, tombstone, [plain, deletesOnly]).map((d) => d.body)).toEqual([
      `{"type":"plantDeleted","id":${MIN},"createdAt":"${CREATED}","version":7}`,
    ]);
    expect(replayedWrites(tombstone, '2026-01-01T00:00:00.000Z', undefined)).toEqual([
      { event: 'plantDeleted', createdAt: CREATED, version: 7, storedAt: CHANGED },
    ]);
  });
});

describe('the typed bodies and their schemas (the OpenAPI document describes these)', () => {
  it('writes each body as its schema says: every member valid, in the schema order, nothing else', () => {
    const cases = [
      ['INSERT', image({ tag: { S: 'herb' } })],
      ['MODIFY', image(changed(2))],
      ['MODIFY', image(marked(3))],
    ] as const;
    for (const [kind, item] of cases) {
      const write = writeOf(kind, item);
      const [delivery] = deliveriesOf(write, item, [all]);
      const parsed = JSON.parse(delivery!.body.replace(/"id":(-?\d+)/, '"id":"$1"'));
      parsed.id = BigInt(parsed.id);
      const schema = EVENT_BODIES[write.event];
      expect(v.parse(schema, parsed)).toEqual(parsed);
      const order = Object.keys(schema.pipe[0].entries).filter((key) => key in parsed);
      expect(Object.keys(parsed)).toEqual(order);
    }
  });
});

describe('--events and the stored attribute', () => {
  it('parses a list of known names into their canonical order, once each', () => {
    expect(parseEvents('plantDeleted,newPlant,plantDeleted')).toEqual(['newPlant', 'plantDeleted']);
    expect(parseEvents(' plantUpdated ')).toEqual(['plantUpdated']);
  });

  it('refuses an unknown name, or none, in one line', () => {
    for (const text of ['newPlant,plantCreated', '', 'newplant']) {
      const parsed = parseEvents(text);
      expect(parsed).toEqual({
        error: expect.stringMatching(
          /^--events: unknown event .+; choose from newPlant, plantUpdated, plantDeleted$/,
        ),
      });
      expect('error' in parsed && parsed.error).not.toContain('\n');
    }
  });

  it('reads an item without events as newPlant only, and passes over names it does not know', () => {
    expect(eventsOfItem(undefined)).toBe(DEFAULT_EVENTS);
    expect(eventsOfItem(['plantDeleted', 'plantArchived'])).toEqual(['plantDeleted']);
    expect(eventsOfItem(['plantArchived'])).toEqual(['newPlant']);
  });
});

describe('what a replay still finds', () => {
  const since = '2026-01-01T00:00:00.000Z';
  it('is the create in range and the current version when its change is in range', () => {
    expect(replayedWrites(image(), since, undefined).map((w) => w.event)).toEqual(['newPlant']);
    const writes = replayedWrites(image(changed(5)), since, undefined);
    expect(writes).toEqual([
      { event: 'newPlant', createdAt: CREATED, version: 1, storedAt: CREATED },
      { event: 'plantUpdated', createdAt: CREATED, version: 5, storedAt: CHANGED },
    ]);
    // Created before the range, changed within it: only the change.
    expect(
      replayedWrites(image(changed(5)), '2026-01-01T12:00:00.000Z', undefined).map((w) => w.event),
    ).toEqual(['plantUpdated']);
    // Changed after `until`: only the create.
    expect(
      replayedWrites(image(changed(5)), since, '2026-01-01T12:00:00.000Z').map((w) => w.event),
    ).toEqual(['newPlant']);
    // Created again over a tombstone: the create is at its first version, not 1.
    const again = image({ ...changed(7), firstVersion: { N: '5' } });
    expect(replayedWrites(again, since, undefined)).toEqual([
      { event: 'newPlant', createdAt: CREATED, version: 5, storedAt: CREATED },
      { event: 'plantUpdated', createdAt: CREATED, version: 7, storedAt: CHANGED },
    ]);
    expect(
      replayedWrites(image({ version: { N: '5' }, firstVersion: { N: '5' } }), since, undefined),
    ).toEqual([{ event: 'newPlant', createdAt: CREATED, version: 5, storedAt: CREATED }]);
  });
});

describe('the OpenAPI document', () => {
  it("describes the three webhooks, newPlant's body unchanged, the others by their event schemas", () => {
    const document = buildDocument() as {
      webhooks: Record<string, { post: { requestBody: { content: Record<string, unknown> } } }>;
      components: { schemas: Record<string, { required?: string[] }> };
    };
    const bodyOf = (name: string) =>
      document.webhooks[name]!.post.requestBody.content['application/json'];
    expect(Object.keys(document.webhooks)).toEqual(['newPlant', 'plantUpdated', 'plantDeleted']);
    expect(bodyOf('newPlant')).toEqual({ schema: { $ref: '#/components/schemas/NewPlant' } });
    expect(bodyOf('plantUpdated')).toEqual({
      schema: { $ref: '#/components/schemas/PlantUpdatedEvent' },
    });
    expect(bodyOf('plantDeleted')).toEqual({
      schema: { $ref: '#/components/schemas/PlantDeletedEvent' },
    });
    expect(document.components.schemas.PlantDeletedEvent!.required).toEqual([
      'type',
      'id',
      'createdAt',
      'version',
    ]);
    expect(document.components.schemas.NewPlantEvent!.required).toEqual([
      'type',
      'id',
      'name',
      'createdAt',
      'version',
    ]);
  });
});
