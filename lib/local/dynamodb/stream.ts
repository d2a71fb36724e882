/**
 * The plants table's stream, emulated: dynalite has none, so the engine tells it each item write
 * with the item before and after (`item-changes.ts`), once stored, in the order it made them. A
 * write becomes a record as DynamoDB's NEW_IMAGE stream makes it: INSERT when there was no item,
 * MODIFY when there was, REMOVE when it is gone (the key alone); then Lambda's event filter, the
 * one the stack deploys (`STREAM_FILTER_PATTERN`), drops what would never invoke the fan-out.
 * Records are consumed one batch at a time in the order they were made (so per item too), as a
 * stream shard is, and found as Lambda finds them: by polling the shard 4 times a second.
 */
import type { DynamoDBBatchResponse, DynamoDBRecord } from 'aws-lambda';
import {
  passesStreamFilter,
  STREAM_POLL_INTERVAL_MS,
  STREAM_SOURCE,
} from '../../definitions/webhooks';
import { randomText } from '../process/random-ids';
import type { ItemChange } from './item-changes';

/** How the stream hands batches to the fan-out. */
export interface LocalStreamOptions {
  readonly tableName: string;
  readonly invoke: (event: { Records: DynamoDBRecord[] }) => Promise<unknown>;
  /** Multiplies the pause before a failed batch is retried. */
  readonly scale: number;
  /** How old a failing record may grow before it is given up, in ms. */
  readonly maxRecordAgeMs: number;
  readonly log: (line: string) => void;
  /**
   * Receives a record given up past the maximum record age (what Lambda's on-failure
   * destination receives: where it was, not the plant). @default - logged only
   */
  readonly onGiveUp?: (record: DynamoDBRecord) => void;
}

/** The plants table's stream and its mapping to the fan-out. */
export class LocalStream {
  private readonly pending: DynamoDBRecord[] = [];
  private sequence = 0n;
  private running: Promise<unknown> | undefined;
  private closed = false;
  /** When the last poll found records, the timer of the next one, and what it read still pending. */
  private polledAt = Number.NEGATIVE_INFINITY;
  private nextPoll: NodeJS.Timeout | undefined;
  private read = 0;
  /** When each pending record was made, in ms (the record itself says it in whole seconds). */
  private readonly madeAt = new WeakMap<DynamoDBRecord, number>();

  constructor(private readonly options: LocalStreamOptions) {}

  /** One write of an item (`EngineOptions.onItemChange`): a record if it is the table's. */
  readonly record = (change: ItemChange): void => {
    if (change.tableName !== this.options.tableName || this.closed) return;
    this.append(change);
  };

  /**
   * Stops taking records and hands on what it holds without waiting for a poll: the local stream
   * dies with the process (DynamoDB keeps a stream's records for 24 h), so a record left behind
   * would be a newPlant webhook never sent. Stops at the first batch that fails, and logs what is
   * left and how to deliver it.
   */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.nextPoll);
    this.nextPoll = undefined;
    await this.running;
    while (this.pending.length > 0) {
      this.read = this.pending.length;
      if (!(await this.runBatch())) break;
    }
    const first = this.pending[0];
    if (first) {
      // A minute before the first: a plant's stored time is taken before its write. Replay may
      // send a few plants twice; a receiver takes a delivery at least once anyway.
      const since = new Date((this.madeAt.get(first) ?? Date.now()) - 60_000);
      this.options.log(
        `fan-out: ${this.pending.length} stream records were not handed on before the stop; npm run webhook -- replay --since ${since.toISOString()} delivers their plants`,
      );
    }
  }

  private append({ keys, oldItem, newItem }: ItemChange): void {
    const eventName = !oldItem ? 'INSERT' : newItem ? 'MODIFY' : 'REMOVE';
    const record = {
      eventID: randomText(16, 'hex'),
      eventName,
      eventVersion: '1.1',
      eventSource: 'aws:dynamodb',
      awsRegion: 'local',
      eventSourceARN: `arn:aws:dynamodb:local:000000000000:table/${this.options.tableName}/stream/local`,
      dynamodb: {
        ApproximateCreationDateTime: Math.floor(Date.now() / 1000),
        Keys: keys,
        ...(newItem ? { NewImage: newItem } : {}),
        SequenceNumber: String(++this.sequence).padStart(21, '0'),
        SizeBytes: Buffer.byteLength(JSON.stringify(newItem ?? keys)),
        StreamViewType: 'NEW_IMAGE',
      },
    } as DynamoDBRecord;
    // Lambda's event filter: a record that does not pass never invokes the function.
    if (!passesStreamFilter(record)) return;
    this.madeAt.set(record, Date.now());
    this.pending.push(record);
    this.pump();
  }

  /**
   * Hands the fan-out its next batch: of the records the last poll read, or, when those are done,
   * of what the next poll reads (every record there), a poll interval after the last.
   */
  private pump(): void {
    if (this.running || this.closed || this.pending.length === 0 || this.nextPoll) return;
    if (this.read === 0) {
      const wait = this.polledAt + STREAM_POLL_INTERVAL_MS - performance.now();
      if (wait > 0) {
        this.nextPoll = setTimeout(() => {
          this.nextPoll = undefined;
          this.pump();
        }, wait);
        return;
      }
      this.polledAt = performance.now();
      this.read = this.pending.length;
    }
    this.running = this.runBatch().finally(() => {
      this.running = undefined;
      this.pump();
    });
  }

  /**
   * One batch; a failure is retried from the first failed record, after a pause, until that
   * record is older than the maximum record age, as Lambda's mapping does: then it is given up
   * (and replay is how its plant is delivered). True when the whole batch was handed on.
   */
  private async runBatch(): Promise<boolean> {
    const batch = this.pending.slice(0, Math.min(STREAM_SOURCE.batchSize, this.read));
    let failedAt: number;
    try {
      const answer = (await this.options.invoke({
        Records: batch,
      })) as DynamoDBBatchResponse | null;
      // Lambda's checkpoint: the failure with the lowest sequence number; an identifier that
      // names no record of the batch (missing, empty, another) fails the whole batch.
      const positions = (answer?.batchItemFailures ?? []).map((failure) =>
        batch.findIndex((r) => r.dynamodb?.SequenceNumber === failure.itemIdentifier),
      );
      failedAt =
        positions.length === 0 ? -1 : positions.some((p) => p < 0) ? 0 : Math.min(...positions);
    } catch (error) {
      this.options.log(`fan-out failed: ${(error as Error).message}`);
      failedAt = 0;
    }
    if (failedAt < 0) {
      this.done(batch.length);
      return true;
    }
    this.done(failedAt);
    const maxAgeMs = this.options.maxRecordAgeMs;
    const failed = this.pending[0];
    if (failed && Date.now() - (this.madeAt.get(failed) ?? 0) > maxAgeMs) {
      this.done(1);
      this.options.log(
        `fan-out gave up on stream record ${failed.dynamodb?.SequenceNumber}: older than the maximum record age (${maxAgeMs / 1000} s); npm run webhook -- replay --since delivers its plant`,
      );
      this.options.onGiveUp?.(failed);
      return false;
    }
    await new Promise((resolve) => setTimeout(resolve, Math.max(20, 1000 * this.options.scale)));
    return false;
  }

  /** The first `count` pending records are done with (handed on, or given up). */
  private done(count: number): void {
    this.pending.splice(0, count);
    this.read = Math.max(0, this.read - count);
  }
}
