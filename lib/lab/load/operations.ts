/**
 * The operations `npm run load` mixes, derived from the registry: one per API function, named as
 * the function, sending its operation's example request (lib/definitions/example-request.ts)
 * about a plant chosen by what the request does with it (../plant-use.ts: a new id for a create,
 * one kept for reading for a read or a change, one taken to delete for a delete), with the load
 * plant's members in place of the example's. A new operation joins the mix with no edit here; one
 * whose request cannot be derived is left out and named (`REFUSED`).
 */
import { API, type RouteDefinition } from '../../definitions/api';
import { exampleRequest, NotDerivable } from '../../definitions/example-request';
import { FUNCTION_NAMES, FUNCTIONS, type FunctionName } from '../../definitions/functions';
import { plantUse, type PlantUse } from '../plant-use';

/** The members every plant of a load run gets, so they can be told apart in the table. */
export const LOAD_PLANT = { name: 'load', tag: 'npm run load' } as const;

/**
 * Requests tuned by hand, as a committed event may be: the query an operation sends, and more
 * operations of the same function with their own queries. An operation not named here sends
 * its example request as it is.
 */
const TUNED: Partial<
  Record<FunctionName, { readonly query: string; readonly more?: Readonly<Record<string, string>> }>
> = {
  'list-plants': {
    query: 'limit=20',
    // A page of one tag's plants: the tag every load plant has, so one index partition takes them.
    more: { 'list-plants-by-tag': `tag=${encodeURIComponent(LOAD_PLANT.tag)}&limit=20` },
  },
};

/** What a load operation sends. */
interface LoadOperation {
  readonly function: FunctionName;
  readonly route: RouteDefinition;
  readonly use: PlantUse;
  readonly query?: string;
}

const refused: string[] = [];
/** The operations whose request cannot be derived from their descriptors, each with why. */
export const REFUSED: readonly string[] = refused;

const LOAD_OPERATIONS: Readonly<Record<string, LoadOperation>> = Object.fromEntries(
  FUNCTION_NAMES.flatMap((name) => {
    if (!FUNCTIONS[name].operation) return [];
    const route = API.routes.find((r) => r.function === name);
    if (!route) throw new Error(`load: no route in the API for ${name}`);
    let use: PlantUse;
    try {
      use = plantUse(name);
    } catch (error) {
      if (!(error instanceof NotDerivable)) throw error;
      refused.push(error.message);
      return [];
    }
    const tuned = TUNED[name];
    return [
      [name, { function: name, route, use, query: tuned?.query }],
      ...Object.entries(tuned?.more ?? {}).map(([operation, query]) => [
        operation,
        { function: name, route, use, query },
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

/** What an operation's request does with a plant (../plant-use.ts). */
export function usesPlant(operation: Operation): PlantUse {
  return LOAD_OPERATIONS[operation]!.use;
}

/** The operation that creates plants (the seeding sends it), or undefined if there is none. */
export const CREATE: Operation | undefined = OPERATIONS.find((op) => usesPlant(op) === 'creates');

/** One request to send. */
export interface PlannedRequest {
  readonly operation: Operation;
  readonly method: string;
  /** Path and query, to append to the base URL's path. */
  readonly path: string;
  readonly body?: string;
  readonly contentType?: string;
  /** The plant this request creates (deletable once answered 200). */
  readonly creates?: number;
}

/**
 * Picks operations in proportion to their weights, evenly spread (smooth weighted round robin,
 * as nginx balances upstreams): `create-plant=3,get-plant=1` gives c c g c c c g c …, so every window of a
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
  const { function: name, use, query } = LOAD_OPERATIONS[operation]!;
  // A change names a plant kept for reading too: a change never makes a get answer 404.
  const id =
    use === 'creates'
      ? newId()
      : use === 'deletes'
        ? plants.deletable.take()
        : use === 'names'
          ? plants.readable.any()
          : 0;
  if (id === undefined) return undefined;
  const request = exampleRequest(name, id, LOAD_PLANT);
  return {
    operation,
    method: request.method,
    path: `${request.path}${query ? `?${query}` : ''}`,
    ...(request.body === undefined ? {} : { body: request.body, contentType: request.contentType }),
    ...(use === 'creates' ? { creates: id } : {}),
  };
}
