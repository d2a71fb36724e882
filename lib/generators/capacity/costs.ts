/**
 * The registry's operations as the capacity model sees them, derived from their descriptors and
 * grants: which plants-table units a request spends (a function granted a write action on the
 * plants table writes, else one granted any action reads), and what one invocation costs — as
 * `npm run bench -- --phases request` measured it (`./inputs`), or, for an operation not yet
 * measured, the stated figures of the registry's most similar measured operation.
 */
import {
  FUNCTION_NAMES,
  FUNCTIONS,
  tableActions,
  type FunctionName,
  type OperationDefinition,
} from '../../definitions/functions';
import { DEPLOYED_ASSUMPTIONS, MEASURED } from './inputs';

/** The DynamoDB actions that write an item (each request of a writer spends write units). */
const WRITE_ACTIONS = ['dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem'];

/** One operation of the mix. */
export interface CapacityOperation {
  /** Its function's name in the registry: the key of the model's mix. */
  readonly name: FunctionName;
  readonly function: FunctionName;
  readonly method: OperationDefinition['method'];
  /** The plants-table units each request spends: write, read, or none. */
  readonly plants: 'write' | 'read' | undefined;
  /** Its function is granted the plants table's `delete`: each request leaves a tombstone. */
  readonly deletes: boolean;
}

/** Every operation of the registry, in its order. */
export const CAPACITY_OPERATIONS: readonly CapacityOperation[] = FUNCTION_NAMES.flatMap((name) => {
  const operation = FUNCTIONS[name].operation;
  if (!operation) return [];
  const actions = tableActions(name, 'plants');
  const plants = actions.some((action) => WRITE_ACTIONS.includes(action))
    ? 'write'
    : actions.length
      ? 'read'
      : undefined;
  const deletes = (FUNCTIONS[name].tables.plants ?? []).includes('delete');
  return [{ name, function: name, method: operation.method, plants, deletes }];
});

/** What one invocation of a function costs. */
export interface Cost {
  readonly ms: number;
  readonly bytesLogged: number;
  readonly units: number;
  /** The measured operation whose figures stand in until this one is measured. */
  readonly defaultOf?: FunctionName;
}

const measured = (name: FunctionName) =>
  (MEASURED.request.functions as Readonly<Partial<Record<FunctionName, Cost>>>)[name];

/**
 * The measured operation most like `name`: the same method and plants-table actions, else the
 * same actions, else the same method, else any; of several, the slowest (a conservative stand-in).
 */
function mostSimilar(name: FunctionName): FunctionName {
  const method = FUNCTIONS[name].operation!.method;
  const actions = tableActions(name, 'plants').join();
  const candidates = CAPACITY_OPERATIONS.filter((op) => measured(op.function));
  const sameActions = (op: CapacityOperation) =>
    tableActions(op.function, 'plants').join() === actions;
  const tiers = [
    candidates.filter((op) => op.method === method && sameActions(op)),
    candidates.filter(sameActions),
    candidates.filter((op) => op.method === method),
    candidates,
  ];
  const pool = tiers.find((tier) => tier.length)!;
  return pool.reduce((a, b) => (measured(b.function)!.ms > measured(a.function)!.ms ? b : a))
    .function;
}

/**
 * What one invocation of `name` costs: its measured figures, or an operation's not yet measured
 * the figures of its most similar measured operation (`defaultOf` names it), until
 * `npm run bench -- --phases request` measures it and `./inputs` records the figures.
 */
export function costOf(name: FunctionName): Cost {
  const figures = measured(name);
  if (figures) return figures;
  if (!FUNCTIONS[name].operation) throw new Error(`capacity: no measured cost for ${name}`);
  const defaultOf = mostSimilar(name);
  return { ...measured(defaultOf)!, defaultOf };
}

/** The operations whose cost is a default, not measured. */
export const DEFAULTED = CAPACITY_OPERATIONS.filter((op) => !measured(op.function));

/** Billed milliseconds of one invocation: the handler measured here plus the round trip in region. */
export function billedMs(name: FunctionName): number {
  return Math.ceil(costOf(name).ms + DEPLOYED_ASSUMPTIONS.dynamoRoundTripMs);
}
