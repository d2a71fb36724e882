/**
 * What the deliverer learns about each subscriber's receiver, kept on the subscriber's item
 * beside what `subscriptions-table.ts` stores (the only other module that writes these items,
 * which never touches these attributes): its pace (`rate`, `slowdown`, `nextSendAt`), its run
 * of failures, whether and why it is disabled, from when `enable` must replay, and its last
 * `RECENT_ATTEMPTS_KEPT` attempts. A batch of deliveries costs one read, one conditional write
 * to reserve its sends and one write of its outcomes per subscriber, whatever its size.
 */
import {
  GetCommand,
  paginateScan,
  UpdateCommand,
  type DynamoDBDocumentClient,
} from '@aws-sdk/lib-dynamodb';
import type { MethodActions } from '../aws/table-definition';
import { SUBSCRIPTIONS_TABLE } from '../aws/tables';
import { RECENT_ATTEMPTS_KEPT } from './health';
import type { Pace } from './rate-limit';

const KEY = SUBSCRIPTIONS_TABLE.partitionKey.name;

/** One attempt as `webhook attempts` shows it. */
export interface AttemptRecord {
  /** When it started (ISO time). */
  readonly at: string;
  readonly webhookId: string;
  /** The receiver's attempt number for this delivery (1 is the first). */
  readonly attempt: number;
  /** How long it took, in ms. */
  readonly ms: number;
  /** The receiver's status, when it answered. */
  readonly status?: number;
  /** Why there was no status (a timeout, a refused connection). */
  readonly failure?: string;
}

/** A subscriber's receiver as the deliverer and `webhook list` see it. */
export interface ReceiverState extends Pace {
  /** Failed attempts since its last success. */
  readonly consecutiveFailures: number;
  /** When that run of failures began (epoch ms). */
  readonly failingSince?: number;
  /** When it was disabled (ISO time), and why. */
  readonly disabledAt?: string;
  readonly disabledReason?: string;
  /**
   * The earliest plant `enable` must deliver again (its `createdAt`); still there once enabled
   * while `enable`'s replay has not queued everything.
   */
  readonly replayFrom?: string;
  /** Its latest attempts, newest first (only `read` fills it). */
  readonly recentAttempts: readonly AttemptRecord[];
}

/** What one batch's attempts to one subscriber came to. */
export interface BatchOutcomes {
  /** The attempts, in the order they ended. */
  readonly attempts: readonly (AttemptRecord & { readonly ok: boolean })[];
  /** The slowdown to keep (halvings of the rate). */
  readonly slowdown: number;
}

const STATE_ATTRIBUTES = [
  'rate',
  'slowdown',
  'nextSendAt',
  'consecutiveFailures',
  'failingSince',
  'disabledAt',
  'disabledReason',
  'replayFrom',
] as const;

/** The receiver state of the subscriptions table's items, through one document client. */
export class ReceiverStates {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  /** One subscriber's state, or `undefined` once removed. */
  async read(subscriberId: string): Promise<ReceiverState | undefined> {
    const { Item } = await this.client.send(
      new GetCommand({
        TableName: this.tableName,
        Key: { [KEY]: subscriberId },
        ConsistentRead: true,
        ProjectionExpression: [KEY, ...STATE_ATTRIBUTES, 'recentAttempts'].join(', '),
      }),
    );
    return Item && decodeState(Item);
  }

  /** Every subscriber's state, by id (for `webhook list`). */
  async all(): Promise<Map<string, ReceiverState>> {
    const states = new Map<string, ReceiverState>();
    const pages = paginateScan(
      { client: this.client },
      {
        TableName: this.tableName,
        ConsistentRead: true,
        ProjectionExpression: [KEY, ...STATE_ATTRIBUTES].join(', '),
      },
    );
    for await (const page of pages) {
      for (const item of page.Items ?? []) states.set(String(item[KEY]), decodeState(item));
    }
    return states;
  }

  /**
   * Moves `nextSendAt` from `seen` (what `read` said; `undefined`: none yet) to `next`. False
   * when another invocation moved it first (read again and retry), or the subscriber is gone.
   */
  async reserve(subscriberId: string, seen: number | undefined, next: number): Promise<boolean> {
    return this.conditional({
      Key: { [KEY]: subscriberId },
      UpdateExpression: 'SET nextSendAt = :next',
      ConditionExpression:
        seen === undefined
          ? 'attribute_exists(#key) AND attribute_not_exists(nextSendAt)'
          : 'nextSendAt = :seen',
      ExpressionAttributeNames: seen === undefined ? { '#key': KEY } : undefined,
      ExpressionAttributeValues:
        seen === undefined ? { ':next': next } : { ':next': next, ':seen': seen },
    });
  }

  /** Holds every delivery to the subscriber until `until` (epoch ms): its `Retry-After`. */
  async holdUntil(subscriberId: string, until: number): Promise<void> {
    await this.conditional({
      Key: { [KEY]: subscriberId },
      UpdateExpression: 'SET nextSendAt = :until',
      ConditionExpression:
        'attribute_exists(#key) AND (attribute_not_exists(nextSendAt) OR nextSendAt < :until)',
      ExpressionAttributeNames: { '#key': KEY },
      ExpressionAttributeValues: { ':until': until },
    });
  }

  /**
   * Records a batch's attempts: the run of failures ends with a success (the failures after the
   * batch's last success start a new one) or grows, the slowdown is set, and the attempts join
   * the recent ones (the oldest beyond `RECENT_ATTEMPTS_KEPT` dropped). Answers the state after.
   */
  async record(
    subscriberId: string,
    before: ReceiverState,
    { attempts, slowdown }: BatchOutcomes,
  ): Promise<ReceiverState | undefined> {
    const lastOk = attempts.findLastIndex((a) => a.ok);
    const failuresAfter = attempts.slice(lastOk + 1);
    const names: Record<string, string> = { '#key': KEY };
    const values: Record<string, unknown> = { ':slowdown': slowdown };
    const set = ['slowdown = :slowdown'];
    const remove: string[] = [];
    if (lastOk >= 0) {
      set.push('consecutiveFailures = :failures');
      values[':failures'] = failuresAfter.length;
      if (failuresAfter.length > 0) {
        set.push('failingSince = :since');
        values[':since'] = Date.parse(failuresAfter[0]!.at);
      } else {
        remove.push('failingSince');
      }
    } else if (failuresAfter.length > 0) {
      set.push(
        'consecutiveFailures = if_not_exists(consecutiveFailures, :zero) + :failures',
        'failingSince = if_not_exists(failingSince, :since)',
      );
      values[':zero'] = 0;
      values[':failures'] = failuresAfter.length;
      values[':since'] = Date.parse(failuresAfter[0]!.at);
    }
    // The newest attempts, capped: one write keeps the list bounded. Two invocations writing at
    // once keep the later one's view: a diagnostic may miss an attempt, never grow.
    const kept = [
      ...attempts.map((a): AttemptRecord => recordOf(a)).reverse(),
      ...before.recentAttempts,
    ].slice(0, RECENT_ATTEMPTS_KEPT);
    set.push('recentAttempts = :recent');
    values[':recent'] = kept.map(dropUndefined);
    const { Attributes } = await this.client
      .send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { [KEY]: subscriberId },
          UpdateExpression: `SET ${set.join(', ')}${remove.length ? ` REMOVE ${remove.join(', ')}` : ''}`,
          ConditionExpression: 'attribute_exists(#key)',
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: values,
          ReturnValues: 'ALL_NEW',
        }),
      )
      .catch((error: Error) => {
        if (error?.name === 'ConditionalCheckFailedException') return { Attributes: undefined };
        throw error;
      });
    return Attributes && decodeState(Attributes);
  }

  /** The subscriber's recent attempts, newest first. */
  async recentAttempts(subscriberId: string): Promise<AttemptRecord[] | undefined> {
    const { Item } = await this.client.send(
      new GetCommand({
        TableName: this.tableName,
        Key: { [KEY]: subscriberId },
        ConsistentRead: true,
        ProjectionExpression: `${KEY}, recentAttempts`,
      }),
    );
    if (!Item) return undefined;
    return Array.isArray(Item.recentAttempts)
      ? (Item.recentAttempts as Record<string, unknown>[]).map(decodeAttempt)
      : [];
  }

  /**
   * Disables the subscriber (true when this call did, so the operator is told once) and keeps
   * `replayFrom` for `enable`: the older of `storedAt` and a replay point already kept (one that
   * an interrupted `enable` left pending, or an earlier drop's).
   */
  async disable(
    subscriberId: string,
    at: string,
    reason: string,
    storedAt: string,
  ): Promise<boolean> {
    const disabled = await this.conditional({
      Key: { [KEY]: subscriberId },
      UpdateExpression:
        'SET disabledAt = :at, disabledReason = :reason, replayFrom = if_not_exists(replayFrom, :from)',
      ConditionExpression: 'attribute_exists(#key) AND attribute_not_exists(disabledAt)',
      ExpressionAttributeNames: { '#key': KEY },
      ExpressionAttributeValues: { ':at': at, ':reason': reason, ':from': storedAt },
    });
    await this.keepForReplay(subscriberId, storedAt);
    return disabled;
  }

  /**
   * A delivery dropped while disabled: `enable` replays from its plant at the latest. False when
   * nothing was written: the replay point is already as old, or the subscriber is not disabled
   * (enabled meanwhile, or removed).
   */
  async keepForReplay(subscriberId: string, storedAt: string): Promise<boolean> {
    return this.conditional({
      Key: { [KEY]: subscriberId },
      UpdateExpression: 'SET replayFrom = :from',
      ConditionExpression:
        'attribute_exists(disabledAt) AND (attribute_not_exists(replayFrom) OR replayFrom > :from)',
      ExpressionAttributeValues: { ':from': storedAt },
    });
  }

  /**
   * Turns a disabled subscriber back on with a clean run and full rate, keeping its replay point
   * (`replayFrom`, else when it was disabled) until `replayed` clears it, so that a replay
   * interrupted before it has queued everything can be run again. Answers the state before:
   * for one already active, as it is (its `replayFrom` says a replay is still pending);
   * `undefined` when there is no such subscriber.
   */
  async enable(subscriberId: string): Promise<ReceiverState | undefined> {
    try {
      const { Attributes } = await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { [KEY]: subscriberId },
          UpdateExpression:
            'SET replayFrom = if_not_exists(replayFrom, disabledAt), consecutiveFailures = :zero, slowdown = :zero REMOVE disabledAt, disabledReason, failingSince, nextSendAt',
          ConditionExpression: 'attribute_exists(disabledAt)',
          ExpressionAttributeValues: { ':zero': 0 },
          ReturnValues: 'ALL_OLD',
        }),
      );
      return Attributes && decodeState(Attributes);
    } catch (error) {
      if ((error as Error)?.name !== 'ConditionalCheckFailedException') throw error;
      return this.read(subscriberId);
    }
  }

  /**
   * `enable`'s replay from `since` has queued everything: the replay point goes, unless the
   * subscriber was disabled again meanwhile (then it stays for the next `enable`).
   */
  async replayed(subscriberId: string, since: string): Promise<void> {
    await this.conditional({
      Key: { [KEY]: subscriberId },
      UpdateExpression: 'REMOVE replayFrom',
      ConditionExpression: 'replayFrom = :since AND attribute_not_exists(disabledAt)',
      ExpressionAttributeValues: { ':since': since },
    });
  }

  /** Sets the subscriber's rate (per second); false when there is no such subscriber. */
  async setRate(subscriberId: string, rate: number): Promise<boolean> {
    return this.conditional({
      Key: { [KEY]: subscriberId },
      UpdateExpression: 'SET rate = :rate',
      ConditionExpression: 'attribute_exists(#key)',
      ExpressionAttributeNames: { '#key': KEY },
      ExpressionAttributeValues: { ':rate': rate },
    });
  }

  /** An update whose condition may fail: false then. */
  private async conditional(
    input: Omit<ConstructorParameters<typeof UpdateCommand>[0], 'TableName'>,
  ): Promise<boolean> {
    try {
      await this.client.send(new UpdateCommand({ TableName: this.tableName, ...input }));
      return true;
    } catch (error) {
      if ((error as Error)?.name === 'ConditionalCheckFailedException') return false;
      throw error;
    }
  }
}

/** The DynamoDB actions of each method (a function given a method is granted them). */
export const RECEIVER_STATES_ACTIONS = {
  read: ['dynamodb:GetItem'],
  all: ['dynamodb:Scan'],
  reserve: ['dynamodb:UpdateItem'],
  holdUntil: ['dynamodb:UpdateItem'],
  record: ['dynamodb:UpdateItem'],
  recentAttempts: ['dynamodb:GetItem'],
  disable: ['dynamodb:UpdateItem'],
  keepForReplay: ['dynamodb:UpdateItem'],
  enable: ['dynamodb:UpdateItem'],
  replayed: ['dynamodb:UpdateItem'],
  setRate: ['dynamodb:UpdateItem'],
} as const satisfies MethodActions<ReceiverStates>;

/** An attempt as kept: without the batch's `ok` flag. */
function recordOf({ at, webhookId, attempt, ms, status, failure }: AttemptRecord): AttemptRecord {
  return dropUndefined({ at, webhookId, attempt, ms, status, failure });
}

function dropUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}

/** A number as the document client reads it (wrapped, so that int64 plant ids keep their digits). */
function number(value: unknown): number | undefined {
  if (typeof value === 'number') return value;
  const text = (value as { value?: unknown } | undefined)?.value;
  return typeof text === 'string' && text !== '' ? Number(text) : undefined;
}

function decodeAttempt(item: Record<string, unknown>): AttemptRecord {
  return dropUndefined({
    at: String(item.at),
    webhookId: String(item.webhookId),
    attempt: number(item.attempt) ?? 0,
    ms: number(item.ms) ?? 0,
    status: number(item.status),
    failure: typeof item.failure === 'string' ? item.failure : undefined,
  });
}

function decodeState(item: Record<string, unknown>): ReceiverState {
  const text = (value: unknown) => (typeof value === 'string' ? value : undefined);
  return dropUndefined({
    rate: number(item.rate),
    slowdown: number(item.slowdown),
    nextSendAt: number(item.nextSendAt),
    consecutiveFailures: number(item.consecutiveFailures) ?? 0,
    failingSince: number(item.failingSince),
    disabledAt: text(item.disabledAt),
    disabledReason: text(item.disabledReason),
    replayFrom: text(item.replayFrom),
    recentAttempts: Array.isArray(item.recentAttempts)
      ? (item.recentAttempts as Record<string, unknown>[]).map(decodeAttempt)
      : [],
  });
}
