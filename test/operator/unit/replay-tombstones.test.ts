/**
 * What `webhook replay` makes of a deleted plant's tombstone: its plantDeleted alone, when the
 * delete was made in the range (its create and changes are superseded: the tag is gone from the
 * item), with the `createdAt#version` a live plantDeleted's webhook-id derives from; a live plant
 * still shows its create and current change.
 */
import { marshall } from '@aws-sdk/util-dynamodb';
import { replayedWrites } from '../../../lib/operator/webhook/replay';

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
