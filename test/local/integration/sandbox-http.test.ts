/**
 * A sandbox pool behind the gateway over HTTP: the Node version a function sees (Lambda's, from
 * the node-<platform> package) and what a throttled invocation answers.
 */
import { API } from '../../../lib/definitions/api';
import { lambdaNode } from '../../../lib/definitions/lambda-node';
import { Gateway } from '../../../lib/local/gateway';
import { keep, pool, type Answer } from '../../support/sandbox-pool';

describe('through the gateway over HTTP', () => {
  let gateway: Gateway;
  let url: string;
  let functions: ReturnType<typeof pool>;
  beforeAll(async () => {
    functions = pool({ concurrency: 1 });
    const p = functions.pool;
    gateway = new Gateway({
      api: {
        ...API,
        routes: [{ method: 'POST', path: '/probe', function: 'create-plant', authorized: false }],
      },
      authCacheTtlSeconds: 0,
      log: () => undefined,
      invoke: (_, event) => {
        const body = JSON.parse((event as { body: string }).body);
        return p.invoke({ ...body, http: true });
      },
    });
    url = `http://127.0.0.1:${await gateway.listen(0)}/probe`;
    keep(p); // stopped in afterAll, not after each test
  });
  afterAll(async () => {
    await gateway.close();
    await functions.pool.stop();
  });
  const probe = (body: object) =>
    fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });

  it("runs functions on Lambda's Node 24 (the node-<platform> package)", async () => {
    const node = lambdaNode();
    expect(node.notice).toBeUndefined();
    expect(node.major).toBe(24);
    const response = await probe({});
    expect(response.status).toBe(200);
    const { version } = (await response.json()) as Answer;
    expect(version).toMatch(/^v24\./);
  });

  it('answers a throttled invocation 500 {"message":"Internal Server Error"}', async () => {
    // One sandbox allowed: whichever request reaches it second is throttled.
    const answers = await Promise.all([probe({ wait: 400 }), probe({ wait: 400 })]);
    expect(answers.map((a) => a.status).sort()).toEqual([200, 500]);
    const throttled = answers.find((a) => a.status === 500)!;
    expect(await throttled.text()).toBe('{"message":"Internal Server Error"}');
  });
});
