/**
 * What the deliverer learns about each subscriber's receiver, kept on the subscriber's item
 * beside what `subscriptions-table.ts` stores (the only other module that writes these items,
 * which never touches these attributes): its pace (`rate`, `slowdown`, a `Retry-After` hold in
 * `nextSendAt`, and the slots of its grid granted in each quarter-second epoch: `pace-grants.ts`),
 * its run of failures, whether and why it is disabled, and from when `enable` must replay. Its
 * latest attempts are kept apart (`attempt-records.ts`), so that the item stays a few hundred
 * bytes: one write unit. A sandbox's second of deliveries to a subscriber costs one conditional
 * write (`grant`), which answers the whole item, the subscriber's address and sealed secrets
 * with it.
 */
import {
  GetCommand,
  paginateScan,
  UpdateCommand,
  type DynamoDBDocumentClient,
} from '@aws-sdk/lib-dynamodb';
import type { MethodActions } from '../aws/table-definition';
import { SUBSCRIPTIONS_TABLE } from '../aws/tables';
import {
  decodeAttempts,
  dropUndefined,
  latestAttempts,
  numberOf,
  readAttempts,
  writeAttempts,
  type AttemptRecord,
} from './attempt-records';
import { floorOf, grantedOf, grantUpdate, type Granted, type GrantAsk } from './pace-grants';
import type { Pace } from './rate-limit';
import { sealedSubscriberOf, type SealedSubscriber } from './subscriptions-table';

export type { AttemptRecord } from './attempt-records';
export type { GrantAsk } from './pace-grants';

const KEY = SUBSCRIPTIONS_TABLE.partitionKey.name;

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
}

/**
 * A subscriber as a `read` or a `grant` saw it: its receiver state, its address and sealed
 * secrets, and the slots of its grid granted so far in each epoch still kept (by epoch).
 */
export interface ReceiverView extends ReceiverState {
  readonly subscriber: SealedSubscriber;
  readonly granted: Granted;
  /** The latest epoch whose count left the item: no grant at or below it. */
  readonly paceFloor?: number;
}

/** A grant: each epoch's counts `from[i]` to `from[i] + n - 1` are the caller's, and the item after. */
export type Grant =
  | { readonly granted: true; readonly from: readonly number[]; readonly view: ReceiverView }
  /** Refused (an epoch is full, the pace changed, disabled): the item as it is, if any. */
  | { readonly granted: false; readonly view: ReceiverView | undefined };

/** What one batch's attempts to one subscriber came to. */
export interface BatchOutcomes {
  /** The attempts, in the order they ended. */
  readonly attempts: readonly (AttemptRecord & { readonly ok: boolean })[];
  /** The slowdown to keep (halvings of the rate). */
  readonly slowdown: number;
  /** The latest attempts recorded before these (newest first). */
  readonly earlier: readonly AttemptRecord[];
  /**
   * How many of `attempts` (the first ones) `showAttempts` already put among `earlier`.
   * @default 0
   */
  readonly shown?: number;
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

  /** One subscriber as it is now, or `undefined` once removed. */
  async read(subscriberId: string): Promise<ReceiverView | undefined> {
    const { Item } = await this.client.send(
      new GetCommand({
        TableName: this.tableName,
        Key: { [KEY]: subscriberId },
        ConsistentRead: true,
      }),
    );
    return Item && decodeView(Item);
  }

  /** Every subscriber's state, by id (for `webhook list`). */
  async all(): Promise<Map<string, ReceiverState>> {
    const states = new Map<string, ReceiverState>();
    const pages = paginateScan(
      { client: this.client },
      {
        TableName: this.tableName,
        ConsistentRead: true,
        // Subscribers only: not the items that keep their attempts.
        FilterExpression: 'attribute_exists(#url)',
        ProjectionExpression: ['#key', ...STATE_ATTRIBUTES].join(', '),
        ExpressionAttributeNames: { '#key': KEY, '#url': 'url' },
      },
    );
    for await (const page of pages) {
      for (const item of page.Items ?? []) states.set(String(item[KEY]), decodeState(item));
    }
    return states;
  }

  /**
   * Grants slots of up to a second of the subscriber's grid to the caller: one conditional
   * write that adds to each epoch's count of slots granted, if they fit and the pace it was
   * asked at still holds (an epoch's spacing fixed by its first grant), and the subscriber is
   * there and enabled; the epochs in `drop` (gone by) leave the item.
   */
  async grant(subscriberId: string, ask: GrantAsk, drop: readonly number[] = []): Promise<Grant> {
    try {
      const { Attributes } = await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { [KEY]: subscriberId },
          ...grantUpdate(ask, drop),
          ReturnValues: 'ALL_NEW',
        }),
      );
      const view = decodeView(Attributes!);
      const from = ask.epochs.map(({ slots, n }) => (view.granted.get(slots.epoch)?.used ?? n) - n);
      return { granted: true, from, view };
    } catch (error) {
      if ((error as Error)?.name !== 'ConditionalCheckFailedException') throw error;
      return { granted: false, view: await this.read(subscriberId) };
    }
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
   * the latest ones (on their own item, the oldest beyond `RECENT_ATTEMPTS_KEPT` dropped).
   * Answers the subscriber after, and the latest attempts as written.
   */
  async record(
    subscriberId: string,
    { attempts, slowdown, earlier, shown = 0 }: BatchOutcomes,
  ): Promise<{ view: ReceiverView; recent: AttemptRecord[] } | undefined> {
    const lastOk = attempts.findLastIndex((a) => a.ok);
    const failuresAfter = attempts.slice(lastOk + 1);
    const names: Record<string, string> = { '#key': KEY };
    const values: Record<string, unknown> = { ':slowdown': slowdown };
    const set = ['slowdown = :slowdown'];
    // Attempts kept here before they had their own item: the item shrinks back to one unit.
    const remove = ['recentAttempts'];
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
    const { Attributes } = await this.client
      .send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { [KEY]: subscriberId },
          UpdateExpression: `SET ${set.join(', ')} REMOVE ${remove.join(', ')}`,
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
    if (!Attributes) return undefined;
    // Two sandboxes recording at once keep the later one's list: a diagnostic may miss an
    // attempt (never the log), and never grows.
    const recent = await this.showAttempts(subscriberId, attempts.slice(shown), earlier);
    return { view: decodeView(Attributes), recent };
  }

  /**
   * Puts `attempts` (in the order they ended) before `earlier` on the subscriber's attempts
   * item only (its own small item: the subscriber's is not written), so that `webhook attempts`
   * shows them; answers the latest attempts as written.
   */
  async showAttempts(
    subscriberId: string,
    attempts: readonly AttemptRecord[],
    earlier: readonly AttemptRecord[],
  ): Promise<AttemptRecord[]> {
    const recent = latestAttempts(attempts, earlier);
    await writeAttempts(this.client, this.tableName, subscriberId, recent);
    return recent;
  }

  /** The subscriber's latest attempts, newest first; `undefined` when there is no such subscriber. */
  async recentAttempts(subscriberId: string): Promise<AttemptRecord[] | undefined> {
    const kept = await readAttempts(this.client, this.tableName, subscriberId);
    const { Item } = await this.client.send(
      new GetCommand({
        TableName: this.tableName,
        Key: { [KEY]: subscriberId },
        ConsistentRead: true,
        ProjectionExpression: `${KEY}, recentAttempts`,
      }),
    );
    if (!Item) return undefined;
    return kept ?? decodeAttempts(Item.recentAttempts);
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
  grant: ['dynamodb:UpdateItem', 'dynamodb:GetItem'],
  holdUntil: ['dynamodb:UpdateItem'],
  record: ['dynamodb:UpdateItem'],
  showAttempts: ['dynamodb:UpdateItem'],
  recentAttempts: ['dynamodb:GetItem'],
  disable: ['dynamodb:UpdateItem'],
  keepForReplay: ['dynamodb:UpdateItem'],
  enable: ['dynamodb:UpdateItem'],
  replayed: ['dynamodb:UpdateItem'],
  setRate: ['dynamodb:UpdateItem'],
} as const satisfies MethodActions<ReceiverStates>;

function decodeState(item: Record<string, unknown>): ReceiverState {
  const text = (value: unknown) => (typeof value === 'string' ? value : undefined);
  return dropUndefined({
    rate: numberOf(item.rate),
    slowdown: numberOf(item.slowdown),
    nextSendAt: numberOf(item.nextSendAt),
    consecutiveFailures: numberOf(item.consecutiveFailures) ?? 0,
    failingSince: numberOf(item.failingSince),
    disabledAt: text(item.disabledAt),
    disabledReason: text(item.disabledReason),
    replayFrom: text(item.replayFrom),
  });
}

function decodeView(item: Record<string, unknown>): ReceiverView {
  const paceFloor = floorOf(item);
  return {
    ...decodeState(item),
    subscriber: sealedSubscriberOf(item),
    granted: grantedOf(item),
    ...(paceFloor === undefined ? {} : { paceFloor }),
  };
}
