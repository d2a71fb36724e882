/**
 * What `webhook replay` makes of a deleted plant's tombstone: its plantDeleted alone, when the
 * delete was made in the range (its create and changes are superseded: the tag is gone from the
 * item), with the `createdAt#version` a live plantDeleted's webhook-id derives from; a live plant
 * still shows its create and current change.
 */
import { marshall } from '@aws-sdk/util-dynamodb';
import { TOMBSTONE_DAYS } from '../../../lambda/plants/item';
import type { Subscriber } from '../../../lambda/webhook/subscriptions-table';
import { replay, replayedWrites, replayNotes } from '../../../lib/operator/webhook/replay';

const createdAt = '2026-11-01T00:00:00.000Z';
const updatedAt = '2026-11-02T00:00:00.000Z';
const deletedAt = '2026-11-03T00:00:00.000Z';
const plant = { id: 7, name: 'Fern', createdAt, createdBy: 'tok_a', version: 3, updatedAt };
const tombstone = marshall({ ...plant, version: 4, deletedAt, purgeAt: 1_800_000_000 });

it('a tombstone whose delete is in the range replays its plantDeleted alone', () => {
  expect(replayedWrites(tombstone, '2026-10-01T00:00:00.000Z', undefined)).toEqual([
    { event: 'plantDeleted', createdAt, version: 4, storedAt: deletedAt },
  ]);
});

it('a tombstone whose delete is outside the range replays nothing, whatever else is in it', () => {
  expect(replayedWrites(tombstone, '2026-10-01T00:00:00.000Z', deletedAt)).toEqual([]);
  expect(replayedWrites(tombstone, '2026-11-04T00:00:00.000Z', undefined)).toEqual([]);
});

it('a live plant replays its create and its current change', () => {
  expect(replayedWrites(marshall(plant), '2026-10-01T00:00:00.000Z', undefined)).toEqual([
    { event: 'newPlant', createdAt, version: 1, storedAt: createdAt },
    { event: 'plantUpdated', createdAt, version: 3, storedAt: updatedAt },
  ]);
});

describe('a range older than the tombstones are kept', () => {
  const DAY = 86_400_000;
  const subscriber = (events?: string[]) =>
    ({
      subscriberId: 'sub_1',
      url: 'https://example.com/hook',
      createdAt: '2020-01-01T00:00:00.000Z',
      ...(events ? { events } : {}),
    }) as unknown as Subscriber;
  const run = (since: Date, events?: string[]) =>
    replay(
      { since },
      {
        plants: { storedImages: async function* () {} },
        subscribers: async () => [subscriber(events)],
        queue: { send: async () => undefined },
      },
    );

  it('says from when deletes cannot be sent, to a subscriber of plantDeleted', async () => {
    const result = await run(new Date(Date.now() - (TOMBSTONE_DAYS + 5) * DAY), ['plantDeleted']);
    const kept = Date.parse(result.deletesPurgedBefore!);
    expect(Math.abs(kept - (Date.now() - TOMBSTONE_DAYS * DAY))).toBeLessThan(60_000);
    expect(replayNotes(result)).toEqual([
      `plantDeleted before ${result.deletesPurgedBefore} may be missing: a tombstone written before tombstones were kept for good is purged after ${TOMBSTONE_DAYS} days`,
    ]);
  });

  it('says nothing within the tombstones’ days, or when no subscriber chose plantDeleted', async () => {
    const recent = await run(new Date(Date.now() - (TOMBSTONE_DAYS - 1) * DAY), ['plantDeleted']);
    expect(replayNotes(recent)).toEqual([]);
    const old = await run(new Date(Date.now() - (TOMBSTONE_DAYS + 5) * DAY));
    expect(replayNotes(old)).toEqual([]);
  });
});
