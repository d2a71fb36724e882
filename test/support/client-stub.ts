/**
 * A misbehaving Plant Store on loopback, for the client's tests: the first path segment says how
 * it answers, and the rest is the API's path (`baseUrl` = `<url>/<behaviour>`).
 *   /hang/…             accepts the request and never answers
 *   /stall/…            sends 200 and the start of a body, then nothing
 *   /hang-once/…        hangs the first request to each path, answers the next with a plant
 *   /status/…/<code>    answers <code> with the service's Error body (the gateway's for 401, 403,
 *                       413 and 429), an apigw-requestid and `Retry-After: 0`
 *   /redirect/…         302 to /landing, which answers any method with 200 `{"name":"Landing"}`
 *   /pages/plants       5 plants, `limit` a page, the cursor the next index
 *   /numbers/…          a plant with an int64 id and other numbers that a float64 cannot hold
 *   /malformed/…        200 with an id that is not an integer
 * Every request is counted by path, with its headers.
 */
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ClientStub {
  readonly url: string;
  /** The requests received, by path (method and headers). */
  readonly requests: Map<string, { method: string; headers: IncomingHttpHeaders }[]>;
  close(): Promise<void>;
}

const GATEWAY: Record<number, string> = {
  401: 'Unauthorized',
  403: 'Forbidden',
  413: 'Request Entity Too Large',
  429: 'Too Many Requests',
};

export async function startClientStub(): Promise<ClientStub> {
  const requests: ClientStub['requests'] = new Map();
  let served = 0;
  const server = createServer((request, response) => {
    const url = new URL(request.url!, 'http://stub');
    const seen = requests.get(url.pathname) ?? [];
    seen.push({ method: request.method!, headers: request.headers });
    requests.set(url.pathname, seen);
    const [, behaviour, ...rest] = url.pathname.split('/');
    const json = (status: number, body: unknown, headers: Record<string, string> = {}) => {
      const text = typeof body === 'string' ? body : JSON.stringify(body);
      send(response, status, text, headers, ++served);
    };
    request.resume();
    switch (behaviour) {
      case 'hang':
        return;
      case 'stall':
        response.writeHead(200, { 'content-type': 'application/json' });
        response.write('{"id":1,"na');
        return;
      case 'hang-once':
        if (seen.length === 1) return;
        return json(200, { id: 1, name: 'after a timeout' });
      case 'status': {
        const status = Number(rest.at(-1));
        const message = GATEWAY[status];
        return json(
          status,
          message ? { message } : { error: status, message: `status ${status}` },
          {
            'retry-after': '0',
          },
        );
      }
      case 'redirect':
        response.writeHead(302, { location: '/landing' }).end();
        return;
      case 'landing':
        return json(200, { name: 'Landing' });
      case 'pages': {
        const limit = Number(url.searchParams.get('limit') ?? 20);
        const from = Number(url.searchParams.get('cursor') ?? 0);
        const plants = Array.from({ length: Math.max(0, Math.min(limit, 5 - from)) }, (_, i) => ({
          id: `${9007199254740993n + BigInt(from + i)}`,
          name: `p${from + i}`,
        }));
        const next = from + limit < 5 ? `,"next":"${from + limit}"` : '';
        // ids as JSON integers with every digit, as the API writes them
        const body = `{"plants":[${plants.map((p) => `{"id":${p.id},"name":"${p.name}"}`).join(',')}]${next}}`;
        return json(200, body);
      }
      case 'numbers':
        return json(
          200,
          '{"id":-9223372036854775808,"name":"n","big":12345678901234567890,"small":1e-400,"exact":0.1}',
        );
      case 'malformed':
        return json(200, '{"id":1.5,"name":"m"}');
      default:
        return json(404, { message: 'Not Found' });
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function send(
  response: ServerResponse,
  status: number,
  body: string,
  headers: Record<string, string>,
  n: number,
) {
  response
    .writeHead(status, {
      'content-type': 'application/json',
      'apigw-requestid': `stub-${n}`,
      ...headers,
    })
    .end(status === 204 ? undefined : body);
}
