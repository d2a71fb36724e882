/**
 * The plants table, and the only place that talks to it: its methods, one module each (or a pair)
 * under `store/`, each a function of the table it is given; what they answer; and the IAM actions
 * each calls. A function binds the methods its grants name (`bindMethods`), so its bundle carries
 * those and no other (test/functions/unit/bundles.test.ts); operator code binds them all
 * (`plantsTable`).
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { tableDepsFromEnvironment, type TableDeps } from '../aws/dynamodb';
import type { MethodActions } from '../aws/table-definition';
import { PLANTS_BY_TAG_INDEX, PLANTS_TABLE } from '../aws/tables';
import type { Versioned } from './decode';
import type { PlantMembers, StoredPlant } from './schemas';
import { remove, update } from './store/change';
import { get } from './store/get';
import { storedImages } from './store/images';
import { queryByTag, scan } from './store/list';
import { putNew } from './store/put-new';

export type { Versioned } from './decode';

/**
 * What reaches the table: a document client and the table's name. A handler is given it, and
 * every method is given it first.
 */
export type PlantsTableDeps = TableDeps<'plants'>;

/** Every plants function's configuration, read once at cold start. */
export function plantsTableFromEnvironment(env: NodeJS.ProcessEnv = process.env): PlantsTableDeps {
  return tableDepsFromEnvironment('plants', PLANTS_TABLE, env);
}

/** A plant's members as stored (the schema's, besides the id), when a put found its id taken. */
export type TakenBy = PlantMembers;

/** One page of a walk over the table: `last` is the last key evaluated, when more may follow. */
export interface ScanPage {
  readonly plants: StoredPlant[];
  readonly last?: bigint;
}

/** What a change answers: the plant and its version, `unchanged` when it wrote nothing. */
export interface Changed extends Versioned {
  readonly unchanged?: true;
}

/** What a delete answers: the deletion's version (the tombstone keeps no member of the plant). */
export interface Deleted {
  readonly version: number;
}

/**
 * Why a conditional write wrote nothing: no plant under the id, or a version that fails the
 * preconditions.
 */
export type Refusal =
  { readonly refused: 'missing' } | { readonly refused: 'version'; readonly version: number };

/** Who changes or deletes, and when. */
export interface ChangeAudit {
  readonly at: string;
  readonly by: string;
}

/** Every method of the plants table, by its name in the grants: a function of the table first. */
export const PLANTS_METHODS = {
  putNew,
  get,
  update,
  delete: remove,
  scan,
  queryByTag,
  storedImages,
} as const;

/** The methods of the plants table, as `PLANTS_METHODS` defines them. */
export type PlantsMethods = typeof PLANTS_METHODS;

/** A method as its caller sees it, bound to one table. */
type Bound<Method> = Method extends (table: PlantsTableDeps, ...args: infer Args) => infer Answer
  ? (...args: Args) => Answer
  : never;

/** The plants table through one document client: every method. */
export type PlantsTable = { readonly [Name in keyof PlantsMethods]: Bound<PlantsMethods[Name]> };

/** What the operations use of the table: tests may inject any object that has it. */
export type PlantsStore = Pick<
  PlantsTable,
  'putNew' | 'get' | 'update' | 'delete' | 'scan' | 'queryByTag'
>;

/** `methods`, each bound to `table`: what a function's code calls. */
export function bindMethods<Name extends keyof PlantsMethods>(
  table: PlantsTableDeps,
  methods: Pick<PlantsMethods, Name>,
): Pick<PlantsTable, Name> {
  return Object.fromEntries(
    Object.entries(methods).map(([name, method]) => [
      name,
      (...args: unknown[]) =>
        (method as (table: PlantsTableDeps, ...args: unknown[]) => unknown)(table, ...args),
    ]),
  ) as Pick<PlantsTable, Name>;
}

/** The plants table through one document client, every method bound: operator code and tests. */
export function plantsTable(client: DynamoDBDocumentClient, tableName: string): PlantsTable {
  return bindMethods({ plants: client, tableName }, PLANTS_METHODS);
}

/** The DynamoDB actions of each method (a function given a method is granted them). */
export const PLANTS_TABLE_ACTIONS = {
  // A put (again, over a tombstone it met); the GetItem when refused (dynalite).
  putNew: ['dynamodb:PutItem', 'dynamodb:GetItem'],
  get: ['dynamodb:GetItem'],
  // One UpdateItem; on a refused condition, the GetItem that says why (dynalite returns no item).
  update: ['dynamodb:UpdateItem', 'dynamodb:GetItem'],
  // The UpdateItem that makes it a tombstone, and its GetItem when refused.
  delete: ['dynamodb:UpdateItem', 'dynamodb:GetItem'],
  scan: ['dynamodb:Scan'],
  // On the index only (PLANTS_INDEX_METHODS): IAM names it `<table ARN>/index/byTag`.
  queryByTag: ['dynamodb:Query'],
  storedImages: ['dynamodb:Scan'],
} as const satisfies MethodActions<PlantsTable>;

/** The methods that read an index rather than the table: their actions are granted on it alone. */
export const PLANTS_INDEX_METHODS = {
  queryByTag: PLANTS_BY_TAG_INDEX.name,
} as const satisfies Partial<Record<keyof typeof PLANTS_TABLE_ACTIONS, string>>;
