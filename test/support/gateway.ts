/**
 * The local gateway on a loopback port with its functions replaced by in-process stubs, so that
 * every answer a function or authorizer can give is covered and the events can be inspected.
 */
import type { ApiDefinition } from '../../lib/definitions/api';
import { API } from '../../lib/definitions/api';
import type { FunctionName } from '../../lib/definitions/functions';
import { Gateway, type GatewayOptions } from '../../lib/local/gateway';

/** A function or authorizer stand-in. */
export type Stub = (event: Record<string, unknown>) => Promise<unknown>;

/** An authorizer that allows with a context. */
export const ALLOW: Stub = async () => ({
  isAuthorized: true,
  context: { tokenId: 't', name: 'n', scopes: 'plants:write' },
});
/** A function that answers 200 `{}`. */
export const OK: Stub = async () => ({
  statusCode: 200,
  headers: { 'content-type': 'application/json' },
  body: '{}',
});

/** What a test changes. */
export interface StubbedGatewayOptions {
  readonly authorizer?: Stub;
  /** The function behind every route; tests tell routes apart by the event's routeKey. */
  readonly fn?: Stub;
  readonly ttl?: number;
  readonly api?: Partial<ApiDefinition>;
  readonly options?: Partial<GatewayOptions>;
}

async function start(stubs: StubbedGatewayOptions) {
  const calls = { authorizer: [], 'create-plant': [] } as unknown as Record<
    FunctionName,
    Record<string, unknown>[]
  >;
  const stub = (name: FunctionName): Stub =>
    name === 'authorizer' ? (stubs.authorizer ?? ALLOW) : (stubs.fn ?? OK);
  const logs: string[] = [];
  let now = 1_000_000;
  const gw = new Gateway({
    api: { ...API, ...stubs.api },
    authCacheTtlSeconds: stubs.ttl ?? 300,
    log: (line) => logs.push(line),
    now: () => now,
    invoke: (name, event, onStart) => {
      (calls[name] ??= []).push(event as Record<string, unknown>);
      // A stub has no sandbox to wait for: its invocation starts at once.
      onStart?.();
      return stub(name)(event as Record<string, unknown>);
    },
    ...stubs.options,
  });
  const port = await gw.listen(0);
  const request = async (init: RequestInit & { path?: string } = {}) => {
    const response = await fetch(`http://127.0.0.1:${port}${init.path ?? '/plants'}`, {
      method: 'POST',
      ...init,
      headers: { authorization: 'Bearer abc', ...(init.headers as Record<string, string>) },
    });
    return { status: response.status, headers: response.headers, text: await response.text() };
  };
  return { gw, port, calls, logs, request, advance: (ms: number) => (now += ms) };
}

let open: Gateway[] = [];

/** Starts a stubbed gateway; `closeGateways` (in `afterEach`) stops every one started. */
export async function stubbedGateway(stubs: StubbedGatewayOptions = {}) {
  const made = await start(stubs);
  open.push(made.gw);
  return made;
}

/** Stops every gateway `stubbedGateway` started. */
export async function closeGateways(): Promise<void> {
  await Promise.all(open.map((gw) => gw.close()));
  open = [];
}
