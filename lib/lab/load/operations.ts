/**
 * The operations `npm run load` mixes, as HTTP requests, derived from the registry's descriptors:
 * each operation's route (its path's `{id}` an existing plant: one kept for reading, or for a
 * DELETE one taken to delete), and a body where its OpenAPI text takes one (a POST to a
 * collection creates a plant with a new id). A new operation joins the mix with no edit here.
 */
import { API, type RouteDefinition } from '../../definitions/api';
import {
  FUNCTION_NAMES,
  FUNCTIONS,
  type FunctionName,
  type OperationDefinition,
} from '../../definitions/functions';

/** The name every plant of a load run gets, so they can be told apart in the table. */
export const LOAD_PLANT = { name: 'load', tag: 'npm run load' } as const;

/**
 * Requests tuned by hand, as a committed event may be: the query an operation sends, and more
 * operations of the same function with their own queries. An operation not named here sends
 * its route as its descriptor says.
 */
const TUNED: Partial<
  Record<FunctionName, { readonly query: string; readonly more?: Readonly<Record<string, string>> }>
> = {
  'list-plants': {
    query: 'limit=20',
    // A page of one tag's plants: the tag every load plant has, so one index partition takes them.
    more: { tagged: `tag=${encodeURIComponent(LOAD_PLANT.tag)}&limit=20` },
  },
};

/** What a load operation sends. */
interface LoadOperation {
  readonly function: FunctionName;
  readonly route: RouteDefinition;
  readonly descriptor: OperationDefinition;
  readonly query?: string;
}

const LOAD_OPERATIONS: Readonly<Record<string, LoadOperation>> = Object.fromEntries(
  FUNCTION_NAMES.flatMap((name) => {
    const descriptor = FUNCTIONS[name].operation;
    if (!descriptor) return [];
    const route = API.routes.find((r) => r.function === name);
    if (!route) throw new Error(`load: no route in the API for ${name}`);
    const tuned = TUNED[name];
    return [
      [descriptor.mixName, { function: name, route, descriptor, query: tuned?.query }],
      ...Object.entries(tuned?.more ?? {}).map(([operation, query]) => [
        operation,
        { function: name, route, descriptor, query },
      ]),
    ] as [string, LoadOperation][];
  }),
);

/** The operations, in the order the report lists them (the registry's). */
export const OPERATIONS: readonly string[] = Object.keys(LOAD_OPERATIONS);
/** One operation. */
export type Operation = string;

/** The function behind each operation. */
export const FUNCTION_OF: Readonly<Record<Operation, FunctionName>> = Object.fromEntries(
  OPERATIONS.map((operation) => [operation, LOAD_OPERATIONS[operation]!.function]),
);

/**
 * The existing plant an operation names, if any: one kept for reading (a get, a change), or one
 * it deletes (a DELETE takes each plant once).
 */
export function plantUse(operation: Operation): 'reads' | 'deletes' | undefined {
  const { route } = LOAD_OPERATIONS[operation]!;
  if (!route.path.includes('{id}')) return undefined;
  return route.method === 'DELETE' ? 'deletes' : 'reads';
}

/** One request to send. */
export interface PlannedRequest {
  readonly operation: Operation;
  readonly method: string;
  /** Path and query, to append to the base URL's path. */
  readonly path: string;
  readonly body?: string;
  /** The plant this request creates (deletable once answered 200). */
  readonly creates?: number;
}

/**
 * Picks operations in proportion to their weights, evenly spread (smooth weighted round robin,
 * as nginx balances upstreams): `create=3,get=1` gives c c g c c c g c …, so every window of a
 * run has the mix, not only the whole.
 */
export class MixPicker {
  private readonly current = new Map<Operation, number>();
  private readonly total: number;

  constructor(private readonly weights: Readonly<Record<Operation, number>>) {
    this.total = OPERATIONS.reduce((sum, op) => sum + weights[op], 0);
  }

  next(): Operation {
    let best: Operation | undefined;
    for (const op of OPERATIONS) {
      if (this.weights[op] <= 0) continue;
      const value = (this.current.get(op) ?? 0) + this.weights[op];
      this.current.set(op, value);
      if (best === undefined || value > this.current.get(best)!) best = op;
    }
    this.current.set(best!, this.current.get(best!)! - this.total);
    return best!;
  }
}

/** Ids of plants that exist. */
export class IdPool {
  private readonly ids: number[] = [];

  get size(): number {
    return this.ids.length;
  }

  add(id: number): void {
    this.ids.push(id);
  }

  /** Any id, or undefined when there is none. */
  any(random: () => number = Math.random): number | undefined {
    return this.ids.length ? this.ids[Math.floor(random() * this.ids.length)] : undefined;
  }

  /** Takes one id out (any of them), or undefined when there is none. */
  take(random: () => number = Math.random): number | undefined {
    if (!this.ids.length) return undefined;
    const index = Math.floor(random() * this.ids.length);
    const id = this.ids[index]!;
    this.ids[index] = this.ids.at(-1)!;
    this.ids.pop();
    return id;
  }
}

/**
 * The plants a run reads and deletes, kept apart so that a get never races a delete of the
 * same plant (under queueing a get sent first can arrive last, and would answer 404): gets read
 * plants created for reading before the run, deletes take each of the others once — those
 * created for deleting before the run, then those the run creates.
 */
export class Plants {
  readonly readable = new IdPool();
  readonly deletable = new IdPool();
}

/**
 * New plant ids: a random start from 10^15 up, then one by one — distinct from other runs' in
 * practice, exact as JSON numbers (below 2^53), and far from the small ids people type.
 */
export function idSequence(random: () => number = Math.random): () => number {
  let next = 1e15 + Math.floor(random() * 4e15);
  return () => next++;
}

/**
 * The request for `operation`, or undefined when it needs an existing plant and none is left
 * (a delete after every known plant was deleted).
 */
export function plan(
  operation: Operation,
  plants: Plants,
  newId: () => number,
): PlannedRequest | undefined {
  const { route, descriptor, query } = LOAD_OPERATIONS[operation]!;
  const method = route.method;
  const search = query ? `?${query}` : '';
  const takesBody = descriptor.openapi.requestBody !== undefined;
  if (!route.path.includes('{id}')) {
    if (!takesBody) return { operation, method, path: `${route.path}${search}` };
    const id = newId();
    const body = JSON.stringify({ id, ...LOAD_PLANT });
    return { operation, method, path: `${route.path}${search}`, body, creates: id };
  }
  // A change names a plant kept for reading too: a change never makes a get answer 404.
  const id = plantUse(operation) === 'deletes' ? plants.deletable.take() : plants.readable.any();
  if (id === undefined) return undefined;
  const path = `${route.path.replace('{id}', String(id))}${search}`;
  return takesBody
    ? { operation, method, path, body: JSON.stringify(LOAD_PLANT) }
    : { operation, method, path };
}
