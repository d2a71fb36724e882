/**
 * The operations `npm run load` mixes, as HTTP requests: their paths come from the API
 * definition's routes, and get and delete name plants that exist (ids this run created).
 */
import { API, type RouteDefinition } from '../../definitions/api';
import type { FunctionName } from '../../definitions/functions';

/** The operations, in the order the report lists them. */
export const OPERATIONS = ['create', 'get', 'list', 'tagged', 'update', 'patch', 'delete'] as const;
/** One operation. */
export type Operation = (typeof OPERATIONS)[number];

/** The function behind each operation; its route comes from the API definition. */
export const FUNCTION_OF: Record<Operation, FunctionName> = {
  create: 'create-plant',
  get: 'get-plant',
  list: 'list-plants',
  // A page of one tag's plants: the tag every load plant has, so one index partition takes them.
  tagged: 'list-plants',
  update: 'update-plant',
  patch: 'patch-plant',
  delete: 'delete-plant',
};

const ROUTE_OF = Object.fromEntries(
  OPERATIONS.map((operation) => {
    const route = API.routes.find((r) => r.function === FUNCTION_OF[operation]);
    if (!route) throw new Error(`load: no route in the API for ${FUNCTION_OF[operation]}`);
    return [operation, route];
  }),
) as Record<Operation, RouteDefinition>;

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

/** The name every plant of a load run gets, so they can be told apart in the table. */
export const LOAD_PLANT = { name: 'load', tag: 'npm run load' } as const;

/**
 * The request for `operation`, or undefined when it needs an existing plant and none is left
 * (a delete after every known plant was deleted).
 */
export function plan(
  operation: Operation,
  plants: Plants,
  newId: () => number,
): PlannedRequest | undefined {
  const route = ROUTE_OF[operation];
  switch (operation) {
    case 'create': {
      const id = newId();
      const body = JSON.stringify({ id, ...LOAD_PLANT });
      return { operation, method: route.method, path: route.path, body, creates: id };
    }
    case 'list':
      return { operation, method: route.method, path: `${route.path}?limit=20` };
    case 'tagged': {
      const tag = encodeURIComponent(LOAD_PLANT.tag);
      return { operation, method: route.method, path: `${route.path}?tag=${tag}&limit=20` };
    }
    case 'update':
    case 'patch': {
      // A change of a plant kept for reading: a change never makes a get answer 404.
      const id = plants.readable.any();
      if (id === undefined) return undefined;
      const body = JSON.stringify(LOAD_PLANT);
      return {
        operation,
        method: route.method,
        path: route.path.replace('{id}', String(id)),
        body,
      };
    }
    case 'get':
    case 'delete': {
      const id = operation === 'get' ? plants.readable.any() : plants.deletable.take();
      if (id === undefined) return undefined;
      return { operation, method: route.method, path: route.path.replace('{id}', String(id)) };
    }
  }
}
