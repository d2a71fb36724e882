/**
 * The AWS resources a function can be given, each with the methods of the modules that reach it
 * and the IAM actions each method calls (declared beside the method, in its module). The registry
 * gives a function methods; its grants are those methods' actions, nothing else: the stack's
 * roles and key policy, the local runtime's policies and the stack test all read them here.
 */
import { PLANTS_INDEX_METHODS, PLANTS_TABLE_ACTIONS } from '../../lambda/plants/table';
import { TOKENS_TABLE_ACTIONS } from '../../lambda/tokens/table';
import {
  DEAD_LETTERS_ACTIONS,
  DELIVERY_QUEUE_ACTIONS,
  JSON_QUEUE_ACTIONS,
} from '../../lambda/webhook/delivery-queue';
import { RECEIVER_STATES_ACTIONS } from '../../lambda/webhook/receiver-state';
import { SECRET_BOX_ACTIONS } from '../../lambda/webhook/secrets';
import { SUBSCRIPTIONS_TABLE_ACTIONS } from '../../lambda/webhook/subscriptions-table';

/** Each table's methods (of every module that talks to it) and their actions. */
export const TABLE_METHODS = {
  plants: PLANTS_TABLE_ACTIONS,
  tokens: TOKENS_TABLE_ACTIONS,
  // Two modules keep the subscriber's item: who it is and what the deliverer learned.
  subscriptions: { ...SUBSCRIPTIONS_TABLE_ACTIONS, ...RECEIVER_STATES_ACTIONS },
} as const;

/**
 * The methods that read one of a table's indexes, by table: IAM judges them on the index's ARN
 * (`<table ARN>/index/<name>`), so their actions are granted there and not on the table.
 */
export const TABLE_INDEX_METHODS: {
  readonly [T in TableKey]?: Readonly<Partial<Record<TableMethod<T>, string>>>;
} = {
  plants: PLANTS_INDEX_METHODS,
};

/** The webhook's queues, by the key the registry and the stack use, with their methods. */
export const QUEUE_METHODS = {
  deliveries: DELIVERY_QUEUE_ACTIONS,
  deadLetters: DEAD_LETTERS_ACTIONS,
  streamFailures: JSON_QUEUE_ACTIONS,
} as const;

/** The KMS keys, with their methods. */
export const KEY_METHODS = {
  secrets: SECRET_BOX_ACTIONS,
} as const;

export type TableKey = keyof typeof TABLE_METHODS;
export type QueueKey = keyof typeof QUEUE_METHODS;
export type KeyKey = keyof typeof KEY_METHODS;

/** A method of the modules that reach a table. */
export type TableMethod<T extends TableKey> = keyof (typeof TABLE_METHODS)[T] & string;
/** A method of the modules that reach a queue. */
export type QueueMethod<Q extends QueueKey> = keyof (typeof QUEUE_METHODS)[Q] & string;
/** A method of the modules that use a key. */
export type KeyMethod<K extends KeyKey> = keyof (typeof KEY_METHODS)[K] & string;

/** What a function is given: methods on each resource. */
export interface Uses {
  readonly tables?: { readonly [T in TableKey]?: readonly TableMethod<T>[] };
  readonly queues?: { readonly [Q in QueueKey]?: readonly QueueMethod<Q>[] };
  readonly keys?: { readonly [K in KeyKey]?: readonly KeyMethod<K>[] };
}

/**
 * The grants of `methods` on a table, by where IAM judges them: `table` on the table itself,
 * each index's name on that index.
 */
export function tableGrants<T extends TableKey>(
  table: T,
  methods: readonly string[],
): { readonly table: string[]; readonly indexes: Readonly<Record<string, string[]>> } {
  const onIndex: Readonly<Record<string, string | undefined>> = TABLE_INDEX_METHODS[table] ?? {};
  const catalog: Readonly<Record<string, readonly string[]>> = TABLE_METHODS[table];
  const names = [...new Set(methods.flatMap((m) => onIndex[m] ?? []))];
  const indexes = Object.fromEntries(
    names.map((name) => [
      name,
      actionsOf(
        catalog,
        methods.filter((m) => onIndex[m] === name),
      ),
    ]),
  );
  return {
    table: actionsOf(
      catalog,
      methods.filter((m) => onIndex[m] === undefined),
    ),
    indexes,
  };
}

/** The actions `methods` call, given each method's actions, sorted and once each. */
export function actionsOf(
  catalog: Readonly<Record<string, readonly string[]>>,
  methods: readonly string[],
): string[] {
  return [...new Set(methods.flatMap((method) => catalog[method] ?? []))].sort();
}
