/**
 * The plants table's stream, emulated: dynalite has none, so the engine's HTTP layer is watched
 * instead. A PutItem on the plants table whose condition requires the key to be absent (how a
 * create writes) and that the engine answered 200 is an INSERT: the record is made after the
 * answer, when the write is durable, and records are consumed one batch at a time in the order
 * they were made (so per item too), as a stream shard is. Other writes make no record (the
 * fan-out's filter would drop them anyway); `docs/webhooks.md` says so.
 */
import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { DynamoDBBatchResponse, DynamoDBRecord } from 'aws-lambda';
import { PLANTS_TABLE } from '../../../lambda/aws/tables';
import { passesStreamFilter, STREAM_SOURCE } from '../../definitions/webhooks';

const KEY = PLANTS_TABLE.partitionKey.name;

/** The engine's DynamoDB JSON request to PutItem, as far as the stream reads it. */
interface PutItemInput {
  readonly TableName?: string;
  readonly Item?: Record<string, unknown>;
  readonly ConditionExpression?: string;
  readonly ExpressionAttributeNames?: Record<string, string>;
}

/**
 * True when a put is a create (its condition: the key does not exist, or names a plant marked
 * deleted, which a create may overwrite).
 */
function isInsert(input: PutItemInput): boolean {
  const operand =
    /^\s*attribute_not_exists\s*\(\s*([#\w]+)\s*\)(?:\s+OR\s+attribute_exists\s*\(\s*[#\w]+\s*\))?\s*$/.exec(
      input.ConditionExpression ?? '',
    )?.[1];
  const name = operand?.startsWith('#') ? input.ExpressionAttributeNames?.[operand] : operand;
  return name === KEY;
}

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
  private running: Promise<void> | undefined;
  private closed = false;
  /** When each pending record was made, in ms (the record itself says it in whole seconds). */
  private readonly madeAt = new WeakMap<DynamoDBRecord, number>();

  constructor(private readonly options: LocalStreamOptions) {}

  /**
   * Watches one engine request: a successful insert into the table becomes a record. Reads the
   * request body beside the engine (both see every chunk) and never answers. The record is made
   * when the engine ends its answer, after the write: not when the answer is delivered, since a
   * caller that gave up (an SDK timeout, then a retry answered "unchanged") has still stored the
   * plant, and a DynamoDB stream would carry it.
   */
  observe(req: IncomingMessage, res: ServerResponse): void {
    if (!String(req.headers['x-amz-target'] ?? '').endsWith('.PutItem')) return;
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    const end = res.end.bind(res) as (...args: unknown[]) => ServerResponse;
    res.end = ((...args: unknown[]) => {
      this.answered(res.statusCode, chunks);
      return end(...args);
    }) as ServerResponse['end'];
  }

  /** The engine's answer to a PutItem whose request body was `chunks`. */
  private answered(status: number, chunks: readonly Buffer[]): void {
    if (status !== 200) return;
    let input: PutItemInput;
    try {
      input = JSON.parse(Buffer.concat(chunks).toString('utf8')) as PutItemInput;
    } catch {
      return;
    }
    if (input.TableName !== this.options.tableName || !input.Item || !isInsert(input)) return;
    this.append(input.Item);
  }

  /** Waits for the batch in progress; later records are dropped with the process. */
  async close(): Promise<void> {
    this.closed = true;
    await this.running;
  }

  private append(item: Record<string, unknown>): void {
    const record = {
      eventID: randomBytes(16).toString('hex'),
      eventName: 'INSERT',
      eventVersion: '1.1',
      eventSource: 'aws:dynamodb',
      awsRegion: 'local',
      eventSourceARN: `arn:aws:dynamodb:local:000000000000:table/${this.options.tableName}/stream/local`,
      dynamodb: {
        ApproximateCreationDateTime: Math.floor(Date.now() / 1000),
        Keys: { [KEY]: item[KEY] },
        NewImage: item,
        SequenceNumber: String(++this.sequence).padStart(21, '0'),
        SizeBytes: Buffer.byteLength(JSON.stringify(item)),
        StreamViewType: 'NEW_IMAGE',
      },
    } as DynamoDBRecord;
    // Lambda's event filter: a record that does not pass never invokes the function.
    if (!passesStreamFilter(record)) return;
    this.madeAt.set(record, Date.now());
    this.pending.push(record);
    this.pump();
  }

  private pump(): void {
    if (this.running || this.closed || this.pending.length === 0) return;
    this.running = this.runBatch().finally(() => {
      this.running = undefined;
      this.pump();
    });
  }

  /**
   * One batch; a failure is retried from the first failed record, after a pause, until that
   * record is older than the maximum record age, as Lambda's mapping does: then it is given up
   * (and replay is how its plant is delivered).
   */
  private async runBatch(): Promise<void> {
    const batch = this.pending.slice(0, STREAM_SOURCE.batchSize);
    let failedAt: number;
    try {
      const answer = (await this.options.invoke({
        Records: batch,
      })) as DynamoDBBatchResponse | null;
      const first = answer?.batchItemFailures?.[0]?.itemIdentifier;
      failedAt =
        first === undefined ? -1 : batch.findIndex((r) => r.dynamodb?.SequenceNumber === first);
      if (first !== undefined && failedAt < 0) failedAt = 0;
    } catch (error) {
      this.options.log(`fan-out failed: ${(error as Error).message}`);
      failedAt = 0;
    }
    if (failedAt < 0) {
      this.pending.splice(0, batch.length);
      return;
    }
    this.pending.splice(0, failedAt);
    const maxAgeMs = this.options.maxRecordAgeMs;
    const failed = this.pending[0];
    if (failed && Date.now() - (this.madeAt.get(failed) ?? 0) > maxAgeMs) {
      this.pending.splice(0, 1);
      this.options.log(
        `fan-out gave up on stream record ${failed.dynamodb?.SequenceNumber}: older than the maximum record age (${maxAgeMs / 1000} s); npm run webhook -- replay --since delivers its plant`,
      );
      this.options.onGiveUp?.(failed);
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, Math.max(20, 1000 * this.options.scale)));
  }
}
