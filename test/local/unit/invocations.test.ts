/**
 * The console's record of a run: a ring (the oldest entries go past its capacity), each
 * invocation's REPORT figures and lines, the gateway's status over the function's, and what an
 * opened entry shows: no Authorization value, token or webhook secret, long bodies clipped.
 */
import { Invocations, MAX_DENIALS } from '../../../lib/local/dev/invocations';
import { detailOf, summaryOf } from '../../../lib/local/dev/invocation-view';

const END = { measured: { durationMs: 3, maxMemoryMb: 70 }, initMs: undefined, cold: false };

/** An integration event of gateway request `requestId`. */
function httpEvent(requestId: string, body = '{}') {
  return {
    routeKey: 'POST /plants',
    rawPath: '/plants',
    rawQueryString: '',
    headers: { authorization: 'Bearer pst_secret-token-value', 'content-type': 'application/json' },
    requestContext: { requestId },
    body,
  };
}

it('keeps the last `capacity` entries, newest first', () => {
  const invocations = new Invocations(3);
  const observer = invocations.observer('get-plant');
  for (let i = 1; i <= 5; i++) {
    observer.started(`lambda-${i}`, { routeKey: 'GET /plants/{id}', rawPath: `/plants/${i}` });
    observer.ended(`lambda-${i}`, { ...END, result: { statusCode: 200 } });
  }
  expect(invocations.list().map((e) => e.path)).toEqual(['/plants/5', '/plants/4', '/plants/3']);
  expect(invocations.get(1)).toBeUndefined();
});

it('records the lines, the figures and then the gateway’s status of an invocation', () => {
  const invocations = new Invocations();
  const observer = invocations.observer('create-plant');
  observer.started('lambda-1', httpEvent('gw-1'));
  observer.line('lambda-1', '{"level":"ERROR","message":"boom"}');
  observer.ended('lambda-1', { ...END, failure: 'error' });
  invocations.answered({
    requestId: 'gw-1',
    method: 'POST',
    url: '/plants',
    status: 500,
    ms: 5,
    requestHeaders: {},
    responseHeaders: {},
    responseBody: Buffer.from('{"message":"Internal Server Error"}'),
  });
  const [entry] = invocations.list();
  expect(summaryOf(entry!)).toMatchObject({
    functionName: 'create-plant',
    source: 'POST /plants',
    status: 500,
    durationMs: 3,
    cold: false,
    maxMemoryMb: 70,
    requestId: 'gw-1',
    lambdaRequestId: 'lambda-1',
  });
  expect(detailOf(entry!).lines).toEqual(['ERROR boom']);
});

it('shows no Authorization value, token or webhook secret, and clips long bodies', () => {
  const invocations = new Invocations();
  const observer = invocations.observer('create-plant');
  const long = `{"name":"${'x'.repeat(70_000)}","secret":"whsec_abcdef"}`;
  observer.started('lambda-1', httpEvent('gw-1', long));
  observer.line('lambda-1', 'signed with whsec_c2VjcmV0 for pst_abc123');
  observer.ended('lambda-1', { ...END, result: { statusCode: 400, body: '{"secret":"s"}' } });
  const shown = JSON.stringify(detailOf(invocations.list()[0]!));
  expect(shown).not.toMatch(/pst_secret|pst_abc|whsec_c2V|Bearer pst/);
  expect(shown).toContain('"authorization":"(hidden)"');
  expect(shown).toContain('signed with whsec_(hidden) for pst_(hidden)');
  expect(shown).toContain('… (70035 characters)');
  expect(shown.length).toBeLessThan(70_000);
});

it('keeps a bounded number of characters: lines, bodies and denials clipped, the oldest dropped', () => {
  const budget = 1_000_000;
  const invocations = new Invocations(500, budget);
  const observer = invocations.observer('create-plant');
  const line = 'y'.repeat(8_192);
  const body = 'z'.repeat(200_000);
  for (let i = 1; i <= 20; i++) {
    observer.started(`lambda-${i}`, httpEvent(`gw-${i}`, body));
    for (let n = 0; n < 200; n++) observer.line(`lambda-${i}`, line);
    for (let n = 0; n < 100; n++) {
      invocations.denied({ functionName: 'create-plant', action: 'kms:Decrypt', resource: '*' });
    }
    observer.ended(`lambda-${i}`, { ...END, result: { statusCode: 200, body } });
    invocations.answered({
      requestId: `gw-${i}`,
      method: 'POST',
      url: '/plants',
      status: 200,
      ms: 5,
      requestHeaders: {},
      responseHeaders: {},
      responseBody: Buffer.from(body),
    });
  }
  const kept = invocations.list();
  expect(kept[0]!.lambdaRequestId).toBe('lambda-20');
  expect(kept.length).toBeLessThan(20);
  expect(JSON.stringify(kept).length).toBeLessThan(budget * 1.2);
  const detail = detailOf(kept[0]!) as { lines: string[]; denials: unknown[]; deniedMore: number };
  expect(detail.lines.join('').length).toBeLessThanOrEqual(65_536);
  expect(detail.denials).toHaveLength(MAX_DENIALS);
  expect(detail.deniedMore).toBe(100 - MAX_DENIALS);
  expect(kept[0]!.response!.body).toMatch(/… \(200000 bytes\)$/);
});

it('hides the values of headers and query parameters whose names say they carry a credential', () => {
  const invocations = new Invocations();
  const observer = invocations.observer('authorizer');
  observer.started('lambda-1', {
    ...httpEvent('gw-1'),
    rawQueryString: 'access%5Ftoken=q1&tag=aroid',
    queryStringParameters: { access_token: 'q1', tag: 'aroid' },
    headers: { 'Proxy-Authorization': 'Basic cDE=', 'X-Amz-Security-Token': 's1', 'x-ok': 'v' },
  });
  observer.ended('lambda-1', {
    ...END,
    result: { isAuthorized: true, context: { tokenId: 't1' } },
  });
  const shown = detailOf(invocations.list()[0]!);
  const event = shown.event as Record<string, unknown>;
  expect(shown.path).toBe('/plants?access%5Ftoken=(hidden)&tag=aroid');
  expect(event.rawQueryString).toBe('access%5Ftoken=(hidden)&tag=aroid');
  expect(event.queryStringParameters).toEqual({ access_token: '(hidden)', tag: 'aroid' });
  expect(event.headers).toEqual({
    'Proxy-Authorization': '(hidden)',
    'X-Amz-Security-Token': '(hidden)',
    'x-ok': 'v',
  });
  // Outside headers and queries such a name is no secret: the token's id stays.
  expect(shown.result).toEqual({ isAuthorized: true, context: { tokenId: 't1' } });
});

it('hides a token after an escape, a bearer credential however spaced, and more credential names', () => {
  const token = `pst_${'A'.repeat(43)}`;
  const invocations = new Invocations();
  const observer = invocations.observer('create-plant');
  observer.started('lambda-1', {
    ...httpEvent('gw-1', `{"name":"n\\u0020${token}"}`),
    rawPath: `/plants/x%20${token}`,
    rawQueryString: `q=Bearer%20${token}&f=%7B%22t%22%3A%22${token}%22%7D&b=bearer+abc&api_key=k1&password=p1&X-Amz-Signature=s1&key=k2&tag=aroid`,
    headers: { api_key: 'k3', 'x-ok': 'v' },
  });
  observer.ended('lambda-1', END);
  const shown = JSON.stringify(detailOf(invocations.list()[0]!));
  expect(shown).not.toMatch(/AAAA|k1|p1|s1|k2|k3|bearer\+abc/);
  expect(shown).toContain(
    'api_key=(hidden)&password=(hidden)&X-Amz-Signature=(hidden)&key=(hidden)&tag=aroid',
  );
  expect(shown).toContain('"api_key":"(hidden)","x-ok":"v"');
});
