/**
 * The function registry, defined once: each function's entry point, the methods it is given on
 * each table, queue and key (its folder's `grants.ts`, to which its handler's stores are narrowed
 * so that calling another method fails to compile; its grants are each method's actions,
 * lib/definitions/resources.ts), its memory and timeout. The stack deploys one function per entry (environment
 * and IAM derived from it, lib/definitions/policies.ts), the local runtime builds and runs the
 * same entries under the same policies, and the tests loop over them. A new function is one entry
 * here plus one folder under `lambda/`; an API function's entry is its operation's descriptor too
 * (`operation`: route, scope, outcomes, OpenAPI text with its example request), from which the
 * route table, the dashboard, the API reference, the events, the tools and the tests derive theirs.
 */
import {
  PLANTS_TABLE,
  SUBSCRIPTIONS_TABLE,
  TOKENS_TABLE,
  type TableDefinition,
} from '../../lambda/aws/tables';
import { OUTCOME_METRICS, type Outcome } from '../../lambda/observability/metrics-contract';
import { PLANTS_DELETE, PLANTS_READ, PLANTS_WRITE } from '../../lambda/tokens/principal';
import { AUTHORIZER_GRANTS } from '../../lambda/authorizer/grants';
import { CREATE_PLANT_GRANTS } from '../../lambda/create-plant/grants';
import { DELETE_PLANT_GRANTS } from '../../lambda/delete-plant/grants';
import { DELIVER_GRANTS } from '../../lambda/deliver/grants';
import { DELIVER_TIMEOUT_SECONDS } from '../../lambda/webhook/schedule';
import { FAN_OUT_GRANTS } from '../../lambda/fan-out/grants';
import { GET_PLANT_GRANTS } from '../../lambda/get-plant/grants';
import { LIST_PLANTS_GRANTS } from '../../lambda/list-plants/grants';
import { CREATE_PLANT_OPENAPI } from '../../lambda/create-plant/openapi';
import { DELETE_PLANT_OPENAPI } from '../../lambda/delete-plant/openapi';
import { GET_PLANT_OPENAPI } from '../../lambda/get-plant/openapi';
import { LIST_PLANTS_OPENAPI } from '../../lambda/list-plants/openapi';
import { PATCH_PLANT_OPENAPI } from '../../lambda/patch-plant/openapi';
import { UPDATE_PLANT_OPENAPI } from '../../lambda/update-plant/openapi';
import type { OperationDescription } from '../../lambda/plants/openapi/descriptions';
import { PATCH_PLANT_GRANTS } from '../../lambda/patch-plant/grants';
import { UPDATE_PLANT_GRANTS } from '../../lambda/update-plant/grants';
import { actionsOf, TABLE_METHODS, type TableKey, type Uses } from './resources';

/** The tables, by the key the registry and the stack use. */
export const TABLES_BY_KEY = {
  plants: PLANTS_TABLE,
  tokens: TOKENS_TABLE,
  subscriptions: SUBSCRIPTIONS_TABLE,
} as const satisfies Record<TableKey, TableDefinition>;
export type { TableKey };

/**
 * What an API function serves: the one route that reaches it, behind the authorizer, the scope its
 * handler requires (the OpenAPI text and the tests read it here), the outcomes it reports and its
 * OpenAPI text.
 */
export interface OperationDefinition {
  readonly method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** As API Gateway writes it: `{name}` matches one path segment. */
  readonly path: string;
  /** The scope a caller's token must hold (else 403). */
  readonly scope: string;
  /**
   * The outcomes its requests may come to besides `forbidden`, `unavailable` and `error`, which
   * every operation may report: the dashboard's "Plant requests by outcome" graphs their union.
   */
  readonly outcomes: readonly Outcome[];
  /**
   * What the API reference says of it (its folder's `openapi.ts`): summary, parameters, body and
   * the answers the function gives; lib/generators/openapi/ adds the gateway's and writes openapi.json.
   */
  readonly openapi: OperationDescription;
}

/** What the stack and the local runtime need to know about a function. */
export interface FunctionDefinition {
  /** The construct id in the stack (stable: changing it replaces the function). */
  readonly id: string;
  /** The TypeScript entry point, relative to the project root. */
  readonly entry: string;
  /**
   * The methods the function is given on each table (its role gets their DynamoDB actions and
   * nothing else; it receives each table's name in the table's `environmentVariable`), queue
   * and key (their SQS actions, and a key policy statement for their KMS actions).
   */
  readonly tables: NonNullable<Uses['tables']>;
  /** @default - no queue */
  readonly queues?: Uses['queues'];
  /** @default - no key */
  readonly keys?: Uses['keys'];
  /**
   * Memory in MB. 256 unless said: Lambda gives CPU in proportion to memory, and at 128 MB the
   * cold import of the SDK takes about twice as long; every function uses far less than 100 MB.
   */
  readonly memorySize: number;
  /**
   * Lambda timeout in seconds. The SDK makes at most 3 attempts of at most 2 s each plus
   * backoff, so 10 s covers a call's retries, and a plant's write, with its reads and tries,
   * answers 503 itself by `WRITE_BUDGET_MS` (8 s) rather than timing out (the gateway's 500).
   * The authorizer's 10 s is the gateway's own limit for an authorizer.
   */
  readonly timeoutSeconds: number;
  /**
   * What invokes the function besides the API: the plants table's stream (the webhook's
   * fan-out) or the delivery queue (its deliverer). Both get the delivery queue's URL.
   * @default - only the API invokes it
   */
  readonly trigger?: 'plants-stream' | 'delivery-queue';
  /**
   * The function connects to addresses outside AWS (the webhook's receivers): with fixed source
   * addresses (`-c webhookStaticIps=true`) it runs in the egress VPC, behind its NAT gateways.
   * @default false - it only calls AWS APIs
   */
  readonly reachesOutside?: boolean;
  /**
   * Functions a deployment updates before this one (CloudFormation `DependsOn`): those whose
   * code of the last release would misread what this one's new code writes, so that the window
   * in which both run is closed by ordering rather than left to chance. By id in this registry.
   * @default - none: updated in parallel with the others
   */
  readonly deployAfter?: readonly string[];
  /**
   * The API operation the function serves. A function that is neither the authorizer nor
   * triggered must have one (test/functions/unit/descriptors.test.ts).
   * @default - no route reaches it: the authorizer, or a function with a `trigger`
   */
  readonly operation?: OperationDefinition;
}

const REGISTRY = {
  authorizer: {
    id: 'Authorizer',
    entry: 'lambda/authorizer/index.ts',
    ...AUTHORIZER_GRANTS,
    memorySize: 256,
    timeoutSeconds: 10,
  },
  'create-plant': {
    id: 'CreatePlant',
    entry: 'lambda/create-plant/index.ts',
    ...CREATE_PLANT_GRANTS,
    memorySize: 256,
    timeoutSeconds: 10,
    operation: {
      method: 'POST',
      path: '/plants',
      scope: PLANTS_WRITE,
      outcomes: ['created', 'unchanged', 'conflict', 'invalid'],
      openapi: CREATE_PLANT_OPENAPI,
    },
  },
  'get-plant': {
    id: 'GetPlant',
    entry: 'lambda/get-plant/index.ts',
    ...GET_PLANT_GRANTS,
    memorySize: 256,
    timeoutSeconds: 10,
    operation: {
      method: 'GET',
      path: '/plants/{id}',
      scope: PLANTS_READ,
      outcomes: ['read', 'not-modified', 'invalid', 'not-found'],
      openapi: GET_PLANT_OPENAPI,
    },
  },
  'list-plants': {
    id: 'ListPlants',
    entry: 'lambda/list-plants/index.ts',
    ...LIST_PLANTS_GRANTS,
    memorySize: 256,
    timeoutSeconds: 10,
    operation: {
      method: 'GET',
      path: '/plants',
      scope: PLANTS_READ,
      outcomes: ['listed', 'invalid'],
      openapi: LIST_PLANTS_OPENAPI,
    },
  },
  // A change is one conditional UpdateItem; GetItem reads the stored version for a 412 or 404
  // only where the engine returns no old item with the failed condition (dynalite, or none).
  'update-plant': {
    id: 'UpdatePlant',
    entry: 'lambda/update-plant/index.ts',
    ...UPDATE_PLANT_GRANTS,
    memorySize: 256,
    timeoutSeconds: 10,
    operation: {
      method: 'PUT',
      path: '/plants/{id}',
      scope: PLANTS_WRITE,
      outcomes: ['updated', 'invalid', 'not-found', 'precondition-failed'],
      openapi: UPDATE_PLANT_OPENAPI,
    },
  },
  'patch-plant': {
    id: 'PatchPlant',
    entry: 'lambda/patch-plant/index.ts',
    ...PATCH_PLANT_GRANTS,
    memorySize: 256,
    timeoutSeconds: 10,
    operation: {
      method: 'PATCH',
      path: '/plants/{id}',
      scope: PLANTS_WRITE,
      outcomes: ['updated', 'invalid', 'not-found', 'precondition-failed'],
      openapi: PATCH_PLANT_OPENAPI,
    },
  },
  // A delete makes the plant its tombstone (UpdateItem); GetItem as above.
  'delete-plant': {
    id: 'DeletePlant',
    entry: 'lambda/delete-plant/index.ts',
    ...DELETE_PLANT_GRANTS,
    memorySize: 256,
    timeoutSeconds: 10,
    // Its deletes leave tombstones (1.2.0), which 1.1.0's plants functions would read as plants
    // (and a create of the same id and body would answer 200 writing nothing): they are updated
    // first, so no deployment runs the new delete beside the old readers.
    deployAfter: ['create-plant', 'get-plant', 'list-plants', 'update-plant', 'patch-plant'],
    operation: {
      method: 'DELETE',
      path: '/plants/{id}',
      scope: PLANTS_DELETE,
      outcomes: ['deleted', 'invalid', 'not-found', 'precondition-failed'],
      openapi: DELETE_PLANT_OPENAPI,
    },
  },
  // The newPlant webhook: the stream's inserts become one queued delivery per subscriber; 30 s
  // covers a scan of the subscribers and the queue's batches with the SDK's retries. 1,769 MB is
  // one whole vCPU: the fan-out's pace is the CPU the SDK spends per SendMessageBatch (about 1 ms),
  // and CPU-bound work costs the same GB-seconds at any memory.
  'fan-out': {
    id: 'FanOut',
    entry: 'lambda/fan-out/index.ts',
    ...FAN_OUT_GRANTS,
    memorySize: 1_769,
    timeoutSeconds: 30,
    trigger: 'plants-stream',
  },
  // An attempt takes at most 15 s (DNS, then the receiver's 10 s). The handler starts none that
  // could not end, with one queue call after it, within the 30 s (lambda/deliver/handler.ts).
  deliver: {
    id: 'Deliver',
    entry: 'lambda/deliver/index.ts',
    // GetItem and UpdateItem on the subscriber's item, its queues' sends, Decrypt by the key policy.
    ...DELIVER_GRANTS,
    memorySize: 256,
    timeoutSeconds: DELIVER_TIMEOUT_SECONDS,
    trigger: 'delivery-queue',
    reachesOutside: true,
  },
} satisfies Record<string, FunctionDefinition>;

/** The functions, by the name the API definition and the logs use. */
export type FunctionName = keyof typeof REGISTRY;

/** Every function. */
export const FUNCTIONS: Readonly<Record<FunctionName, FunctionDefinition>> = REGISTRY;

/** Every function's name, in registry order. */
export const FUNCTION_NAMES = Object.keys(FUNCTIONS) as FunctionName[];

/**
 * The outcomes plant requests come to, in the metric contract's order: each operation's own, and
 * `forbidden` (any operation's scope check). The dashboard graphs one line each; `unavailable`
 * and `error`, which any function reports, are graphed apart.
 */
export const REQUEST_OUTCOMES: readonly Outcome[] = (
  Object.keys(OUTCOME_METRICS) as Outcome[]
).filter(
  (outcome) =>
    outcome === 'forbidden' ||
    FUNCTION_NAMES.some((name) => FUNCTIONS[name].operation?.outcomes.includes(outcome)),
);

/** The tables a function uses, with their definitions. */
export function tablesOf(name: FunctionName): [TableKey, TableDefinition][] {
  return (Object.keys(FUNCTIONS[name].tables) as TableKey[]).map((key) => [
    key,
    TABLES_BY_KEY[key],
  ]);
}

/**
 * The environment variables naming a function's tables, given each table's real name (the
 * stack's generated names, or the local engine's `localName`s).
 */
export function tableEnvironment(
  name: FunctionName,
  tableName: (key: TableKey, table: TableDefinition) => string,
): Record<string, string> {
  return Object.fromEntries(
    tablesOf(name).map(([key, table]) => [table.environmentVariable, tableName(key, table)]),
  );
}

/** The DynamoDB actions a function is granted on a table: those of the methods it is given. */
export function tableActions(name: FunctionName, table: TableKey): string[] {
  return actionsOf(TABLE_METHODS[table], FUNCTIONS[name].tables[table] ?? []);
}

/** The DynamoDB operations any function may call on a table (`GetItem`…, without `dynamodb:`). */
export function operationsOn(table: TableKey): string[] {
  const actions = FUNCTION_NAMES.flatMap((name) => tableActions(name, table));
  return [...new Set(actions)].map((action) => action.replace('dynamodb:', ''));
}
