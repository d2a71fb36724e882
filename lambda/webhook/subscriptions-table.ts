/**
 * The subscriptions table, and the only module that talks to it: who receives the webhook's
 * events, and which. `list` never reads a secret (the projection leaves it out); `get` returns the
 * sealed secrets for the deliver function alone; `rotate` replaces a secret.
 */
import {
  DeleteCommand,
  GetCommand,
  paginateScan,
  PutCommand,
  UpdateCommand,
  type DynamoDBDocumentClient,
} from '@aws-sdk/lib-dynamodb';
import { randomBytes } from 'node:crypto';
import type { MethodActions } from '../aws/table-definition';
import { SUBSCRIPTIONS_TABLE } from '../aws/tables';
import { attemptsKey } from './attempt-records';
import { eventsOfItem, type PlantEvent } from './events';

const KEY = SUBSCRIPTIONS_TABLE.partitionKey.name;

/** A subscriber as listed: never its secret. */
export interface Subscriber {
  readonly subscriberId: string;
  readonly url: string;
  readonly name: string;
  readonly createdAt: string;
  /** The events it chose (stored as a list of names). @default DEFAULT_EVENTS - newPlant only */
  readonly events?: readonly PlantEvent[];
  /** While a rotation overlaps: when the previous secret stops signing (ISO time). */
  readonly rotationEndsAt?: string;
}

/** A subscriber with its sealed secrets (see `secrets.ts`). */
export interface SealedSubscriber extends Subscriber {
  readonly secret: string;
  /** The secret before the last rotation (it signs until `rotationEndsAt`). */
  readonly previousSecret?: string;
}

/** A new subscriber id: `sub_` and 16 random bytes in base64url (public, like a token id). */
export function newSubscriberId(): string {
  return `sub_${randomBytes(16).toString('base64url')}`;
}

/** The subscriptions table through one document client. */
export class SubscriptionsTable {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  /** Stores a new subscriber (the id is fresh: a put that finds it taken fails). */
  async add(subscriber: SealedSubscriber): Promise<void> {
    await this.client.send(
      new PutCommand({
        TableName: this.tableName,
        Item: { ...subscriber },
        ConditionExpression: 'attribute_not_exists(#key)',
        ExpressionAttributeNames: { '#key': KEY },
      }),
    );
  }

  /** Every subscriber, without secrets (strongly consistent: one just added is seen). */
  async list(): Promise<Subscriber[]> {
    const subscribers: Subscriber[] = [];
    const pages = paginateScan(
      { client: this.client },
      {
        TableName: this.tableName,
        ConsistentRead: true,
        // Subscribers only: not the items that keep their attempts (`attempt-records.ts`).
        FilterExpression: 'attribute_exists(#url)',
        ProjectionExpression: '#key, #url, #name, createdAt, rotationEndsAt, #events',
        ExpressionAttributeNames: {
          '#key': KEY,
          '#url': 'url',
          '#name': 'name',
          '#events': 'events',
        },
      },
    );
    for await (const page of pages) subscribers.push(...(page.Items ?? []).map(decode));
    return subscribers;
  }

  /** One subscriber with its sealed secret, or `undefined` once removed. */
  async get(subscriberId: string): Promise<SealedSubscriber | undefined> {
    const { Item } = await this.client.send(
      new GetCommand({
        TableName: this.tableName,
        Key: { [KEY]: subscriberId },
        ConsistentRead: true,
      }),
    );
    return Item && sealedSubscriberOf(Item);
  }

  /**
   * Replaces a subscriber's secret with `sealed`; the current one becomes the previous one,
   * which keeps signing until `rotationEndsAt` (a rotation within that time drops the oldest).
   * False when there is no such subscriber.
   */
  async rotate(subscriberId: string, sealed: string, rotationEndsAt: string): Promise<boolean> {
    return this.updateExisting(
      subscriberId,
      'SET previousSecret = secret, secret = :secret, rotationEndsAt = :ends',
      { ':secret': sealed, ':ends': rotationEndsAt },
    );
  }

  /** Sets the events a subscriber receives from now on; false when there is no such subscriber. */
  async setEvents(subscriberId: string, events: readonly PlantEvent[]): Promise<boolean> {
    return this.updateExisting(
      subscriberId,
      'SET #events = :events',
      { ':events': [...events] },
      {
        '#events': 'events',
      },
    );
  }

  /** One UpdateItem of a subscriber that exists; false when there is none (nothing written). */
  private async updateExisting(
    subscriberId: string,
    update: string,
    values: Record<string, unknown>,
    names: Record<string, string> = {},
  ): Promise<boolean> {
    try {
      await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { [KEY]: subscriberId },
          UpdateExpression: update,
          ConditionExpression: 'attribute_exists(#key)',
          ExpressionAttributeNames: { '#key': KEY, ...names },
          ExpressionAttributeValues: values,
        }),
      );
      return true;
    } catch (error) {
      if ((error as Error)?.name === 'ConditionalCheckFailedException') return false;
      throw error;
    }
  }

  /** Removes a subscriber (and its recorded attempts); false when there was none. */
  async remove(subscriberId: string): Promise<boolean> {
    const { Attributes } = await this.client.send(
      new DeleteCommand({
        TableName: this.tableName,
        Key: { [KEY]: subscriberId },
        ReturnValues: 'ALL_OLD',
      }),
    );
    await this.client.send(
      new DeleteCommand({ TableName: this.tableName, Key: { [KEY]: attemptsKey(subscriberId) } }),
    );
    return Attributes !== undefined;
  }
}

/** The DynamoDB actions of each method (a function given a method is granted them). */
export const SUBSCRIPTIONS_TABLE_ACTIONS = {
  add: ['dynamodb:PutItem'],
  list: ['dynamodb:Scan'],
  get: ['dynamodb:GetItem'],
  rotate: ['dynamodb:UpdateItem'],
  setEvents: ['dynamodb:UpdateItem'],
  remove: ['dynamodb:DeleteItem'],
} as const satisfies MethodActions<SubscriptionsTable>;

/** A subscriber's item (as `get` or the deliverer's writes answer it) with its sealed secrets. */
export function sealedSubscriberOf(item: Record<string, unknown>): SealedSubscriber {
  if (typeof item.secret !== 'string') {
    throw new Error(`subscriber ${String(item[KEY])} has no secret`);
  }
  const previous = typeof item.previousSecret === 'string' ? item.previousSecret : undefined;
  return {
    ...decode(item),
    secret: item.secret,
    ...(previous === undefined ? {} : { previousSecret: previous }),
  };
}

function decode(item: Record<string, unknown>): Subscriber {
  const { subscriberId, url, name, createdAt, rotationEndsAt, events } = item;
  if (typeof subscriberId !== 'string' || typeof url !== 'string') {
    throw new Error(`a subscription item has no string ${KEY} or url`);
  }
  return {
    subscriberId,
    url,
    name: typeof name === 'string' ? name : '',
    createdAt: typeof createdAt === 'string' ? createdAt : '',
    events: eventsOfItem(events),
    ...(typeof rotationEndsAt === 'string' ? { rotationEndsAt } : {}),
  };
}
