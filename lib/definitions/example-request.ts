/**
 * An API operation's example request, derived from its registry descriptor alone: its method and
 * route, a plant's id for the path's `{id}`, and the body of its OpenAPI text's example
 * (`requestBody.example`) with that plant's id in place of the example plant's. The committed
 * events, the bench and the load send it, whatever the method; a request that cannot be derived
 * so (a path parameter other than `{id}`) is refused with the operation's name.
 */
import { EXAMPLE_PLANT } from '../../lambda/plants/example-plant';
import { FUNCTIONS, type FunctionName, type OperationDefinition } from './functions';

/** One HTTP request of an operation. */
export interface ExampleRequest {
  readonly method: OperationDefinition['method'];
  /** The path, without a query. */
  readonly path: string;
  /** The path's parameters, by name. */
  readonly pathParameters?: Readonly<Record<string, string>>;
  /** The body as JSON text (ids with every digit), where the operation takes one. */
  readonly body?: string;
  /** The body's media type: the first its OpenAPI text names. */
  readonly contentType?: string;
}

/** An operation whose request cannot be derived from its descriptor. */
export class NotDerivable extends Error {
  constructor(
    readonly operation: FunctionName,
    reason: string,
  ) {
    super(`${operation}: no request can be derived from its descriptor: ${reason}`);
  }
}

/** `value` with every `from` (an id, as a bigint) replaced by `to`, at any depth. */
function replaceId(value: unknown, from: bigint, to: bigint): unknown {
  if (value === from) return to;
  if (Array.isArray(value)) return value.map((item) => replaceId(item, from, to));
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [key, replaceId(item, from, to)]),
    );
  }
  return value;
}

/** JSON text in which a `bigint` keeps every digit. */
export function jsonWithBigInts(value: unknown): string {
  const marked = JSON.stringify(value, (_key, item: unknown) =>
    typeof item === 'bigint' ? `\u0000${item}\u0000` : item,
  );
  return marked.replace(/"\\u0000(-?\d+)\\u0000"/g, '$1');
}

/**
 * The example request of `name`'s operation about plant `id`; `members` replace those of the
 * example body that it has (a member the example does not send is not added). Throws
 * `NotDerivable` naming the operation when the request cannot be derived.
 */
export function exampleRequest(
  name: FunctionName,
  id: bigint | number | string = EXAMPLE_PLANT.id,
  members: Readonly<Record<string, unknown>> = {},
): ExampleRequest {
  const operation = FUNCTIONS[name].operation;
  if (!operation) throw new NotDerivable(name, 'no route reaches it');
  const plantId = BigInt(id);
  const parameters = [...operation.path.matchAll(/\{(\w+)\}/g)].map((match) => match[1]!);
  const other = parameters.find((parameter) => parameter !== 'id');
  if (other) throw new NotDerivable(name, `its path parameter {${other}} has no example value`);
  const path = operation.path.replace('{id}', String(plantId));
  const described = operation.openapi.requestBody;
  let body: string | undefined;
  if (described) {
    let example = replaceId(described.example, EXAMPLE_PLANT.id, plantId);
    if (typeof example === 'object' && example !== null && !Array.isArray(example)) {
      const own = example as Record<string, unknown>;
      example = Object.fromEntries(
        Object.entries(own).map(([key, item]) => [key, key in members ? members[key] : item]),
      );
    }
    body = jsonWithBigInts(example);
  }
  return {
    method: operation.method,
    path,
    ...(parameters.length ? { pathParameters: { id: String(plantId) } } : {}),
    ...(body === undefined
      ? {}
      : { body, contentType: described!.mediaTypes?.[0] ?? 'application/json' }),
  };
}
