/**
 * GET /plants/{id}, GET /plants and DELETE /plants/{id} over real HTTP against the local
 * runtime (`startLocal`, as `npm start` runs it): every row of the contract's "Reading and
 * deleting plants" section, byte for byte, with CLI-made tokens of each scope, the gateway's
 * own answers for the new routes, and a full walk while plants are written. Plants are set up,
 * and the walk is made, through `@plant-store/client`; the answers whose bytes are the point are
 * read raw.
 */
import { PlantStore } from '@plant-store/client';
import { parseJson } from '../../../lambda/http/json';
import { cliEnvironment, useLocalService } from '../../support/local-service';
import { ALLOWED_METHODS, unroutedMethods } from '../../support/routes';
import { runCommand } from '../../support/run-cli';

const ID_RULE =
  '{"error":400,"message":"id: must be an integer from -9223372036854775808 to 9223372036854775807"}';

const service = useLocalService('e2e-read');
/** Tokens by scopes: the default (read, write), read only, delete only, and all three (dev). */
const tokens = { default: '', read: '', delete: '', all: '' };

async function send(method: string, path: string, token = tokens.all, body?: string) {
  const response = await fetch(`${service.url}${path}`, {
    method,
    headers: {
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body,
  });
  return { status: response.status, headers: response.headers, text: await response.text() };
}
/** The dev token's client (all three scopes). */
let store: PlantStore;
const create = (id: string, name: string, tag?: string) => store.createPlant({ id, name, tag });

/** Creates plants named after their ids, a few at a time (the gateway caps concurrent requests). */
async function createAll(ids: readonly string[]): Promise<void> {
  for (let i = 0; i < ids.length; i += 10) {
    await Promise.all(ids.slice(i, i + 10).map((id) => create(id, `p${id}`)));
  }
}

async function createToken(...scopes: string[]): Promise<string> {
  const args = ['create', '--name', `e2e ${scopes.join(' ') || 'default'}`];
  if (scopes.length > 0) args.push('--scopes', scopes.join(','));
  const created = await runCommand('token', args, cliEnvironment(service));
  expect(created.code).toBe(0);
  return created.stdout.trim();
}

beforeAll(async () => {
  tokens.all = service.devToken;
  store = new PlantStore({ baseUrl: service.url, token: service.devToken });
  [tokens.default, tokens.read, tokens.delete] = await Promise.all([
    createToken(),
    createToken('plants:read'),
    createToken('plants:delete'),
  ]);
}, 300_000);

describe('GET /plants/{id}', () => {
  it('answers the plant with every digit of its id, tag only if set', async () => {
    await create('9007199254740993', 'Monstera', 'aroid');
    await create('9007199254740992', 'Fern');
    const odd = await send('GET', '/plants/9007199254740993', tokens.read);
    expect(odd).toMatchObject({
      status: 200,
      text: '{"id":9007199254740993,"name":"Monstera","tag":"aroid"}',
    });
    expect(odd.headers.get('content-type')).toBe('application/json');
    expect(await send('GET', '/plants/9007199254740992', tokens.default)).toMatchObject({
      status: 200,
      text: '{"id":9007199254740992,"name":"Fern"}',
    });
  });

  it.each(['9223372036854775807', '-9223372036854775808', '0', '-7'])(
    'the int64 %s reads back exactly',
    async (id) => {
      await create(id, `edge ${id}`);
      expect(await send('GET', `/plants/${id}`)).toMatchObject({
        status: 200,
        text: `{"id":${id},"name":"edge ${id}"}`,
      });
    },
  );

  it('a missing plant is 404 naming the id', async () => {
    expect(await send('GET', '/plants/404404')).toMatchObject({
      status: 404,
      text: '{"error":404,"message":"no plant with id 404404"}',
    });
  });

  it('percent-decodes the id before checking it', async () => {
    await create('42', 'Answer');
    expect((await send('GET', '/plants/%34%32')).text).toBe('{"id":42,"name":"Answer"}');
    expect((await send('GET', '/plants/%2D7')).status).toBe(200);
    expect(await send('GET', '/plants/%2B42')).toMatchObject({ status: 400, text: ID_RULE });
  });

  it.each([
    '+42',
    '042',
    '-0',
    '4.2e1',
    '42.0',
    '1e3',
    'abc',
    '9223372036854775808',
    '-9223372036854775809',
    '%2042',
    '0x2A',
  ])('/plants/%s is 400 with the int64 rule', async (id) => {
    expect(await send('GET', `/plants/${id}`)).toMatchObject({ status: 400, text: ID_RULE });
    expect(await send('DELETE', `/plants/${id}`)).toMatchObject({ status: 400, text: ID_RULE });
  });

  it('needs plants:read, checked before the id', async () => {
    const denied = '{"error":403,"message":"the token lacks the scope plants:read"}';
    expect(await send('GET', '/plants/42', tokens.delete)).toMatchObject({
      status: 403,
      text: denied,
    });
    expect(await send('GET', '/plants/nope', tokens.delete)).toMatchObject({
      status: 403,
      text: denied,
    });
  });
});

describe('DELETE /plants/{id}', () => {
  it('204 without a body, then 404; the id is free for POST again', async () => {
    await create('-31', 'Doomed', 'x');
    const deleted = await send('DELETE', '/plants/-31', tokens.delete);
    expect(deleted).toMatchObject({ status: 204, text: '' });
    expect(await send('DELETE', '/plants/-31', tokens.delete)).toMatchObject({
      status: 404,
      text: '{"error":404,"message":"no plant with id -31"}',
    });
    expect((await send('GET', '/plants/-31')).status).toBe(404);
    await expect(create('-31', 'Reborn')).resolves.toEqual({ name: 'Reborn' });
    expect((await send('GET', '/plants/-31')).text).toBe('{"id":-31,"name":"Reborn"}');
  });

  it('deleting 2^53 leaves 2^53+1', async () => {
    await create('-9007199254740992', 'even');
    await create('-9007199254740993', 'odd');
    expect((await send('DELETE', '/plants/-9007199254740992')).status).toBe(204);
    expect((await send('GET', '/plants/-9007199254740993')).text).toBe(
      '{"id":-9007199254740993,"name":"odd"}',
    );
  });

  it('needs plants:delete, which the default and read tokens lack', async () => {
    await create('-32', 'Kept');
    for (const token of [tokens.default, tokens.read]) {
      expect(await send('DELETE', '/plants/-32', token)).toMatchObject({
        status: 403,
        text: '{"error":403,"message":"the token lacks the scope plants:delete"}',
      });
    }
    expect((await send('GET', '/plants/-32')).status).toBe(200);
  });
});

describe('GET /plants', () => {
  type Page = { plants: { id: bigint; name: string; tag?: string }[]; next?: string };
  const page = (text: string) => parseJson(text) as unknown as Page;

  it('answers a page of at most limit plants, 20 by default', async () => {
    await createAll(Array.from({ length: 30 }, (_, i) => String(1000 + i)));
    const first = await send('GET', '/plants', tokens.read);
    expect(first.status).toBe(200);
    expect(first.headers.get('content-type')).toBe('application/json');
    // A page reads `limit` items, of which the tombstones of the two plants deleted above are
    // left out: at most 20, short by at most 2 (docs/guides/using-the-api.md: a page may be short while `next`
    // is present).
    const deleted = 2;
    expect(page(first.text).plants.length).toBeLessThanOrEqual(20);
    expect(page(first.text).plants.length).toBeGreaterThanOrEqual(20 - deleted);
    expect(page(first.text).next).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(page((await send('GET', '/plants?limit=3')).text).plants.length).toBeLessThanOrEqual(3);
    expect(page((await send('GET', '/plants?limit=100&unknown=1')).text).plants.length).toBe(
      Math.min(100, page((await send('GET', '/plants?limit=100')).text).plants.length),
    );
  });

  it('writes each id as a JSON integer with every digit', async () => {
    const text = (await walk(100)).join('');
    expect(text).toContain('{"id":9007199254740993,"name":"Monstera","tag":"aroid"}');
    expect(text).toContain('{"id":-9223372036854775808,"name":"edge -9223372036854775808"}');
  });

  it.each([
    ['0', 'limit: must be an integer from 1 to 100'],
    ['101', 'limit: must be an integer from 1 to 100'],
    ['abc', 'limit: must be an integer from 1 to 100'],
    ['5.0', 'limit: must be an integer from 1 to 100'],
    ['', 'limit: must be an integer from 1 to 100'],
    ['5&limit=6', 'limit: must be given once'],
  ])('limit=%s is 400', async (limit, message) => {
    expect(await send('GET', `/plants?limit=${limit}`)).toMatchObject({
      status: 400,
      text: JSON.stringify({ error: 400, message }),
    });
  });

  it.each([
    ['made up', 'bm9wZQ'],
    ['not base64url', '***'],
    ['tampered', 'MTAwMA=='],
    ['beyond int64', Buffer.from('9223372036854775808').toString('base64url')],
    ['empty', ''],
  ])('a %s cursor is 400, never 500', async (_, cursor) => {
    expect(await send('GET', `/plants?cursor=${cursor}`)).toMatchObject({
      status: 400,
      text: '{"error":400,"message":"cursor: must be the next value of a previous page"}',
    });
  });

  it('needs plants:read, checked before the query', async () => {
    expect(await send('GET', '/plants?limit=0', tokens.delete)).toMatchObject({
      status: 403,
      text: '{"error":403,"message":"the token lacks the scope plants:read"}',
    });
  });

  /** Every page's text, raw, from the first page to the last. */
  async function walk(limit: number) {
    const texts: string[] = [];
    let cursor: string | undefined;
    do {
      const query = `?limit=${limit}${cursor === undefined ? '' : `&cursor=${cursor}`}`;
      const answer = await send('GET', `/plants${query}`);
      expect(answer.status).toBe(200);
      texts.push(answer.text);
      cursor = page(answer.text).next;
    } while (cursor !== undefined);
    return texts;
  }

  it('a walk while plants are created and deleted returns those there throughout exactly once', async () => {
    const stable = Array.from({ length: 200 }, (_, i) => String(-5000 - i));
    const doomed = Array.from({ length: 60 }, (_, i) => String(-6000 - i));
    await createAll([...stable, ...doomed]);
    let step = 0;
    const seen: string[] = [];
    const deleted: boolean[] = [];
    let cursor: string | undefined;
    do {
      const i = step++;
      const [page] = await Promise.all([
        store.listPage({ limit: 7, cursor }),
        ...doomed
          .slice(i * 2, i * 2 + 2)
          .map(async (id) => deleted.push(await store.deletePlant(id))),
        create(String(-7000 - i), 'born'),
      ]);
      seen.push(...page.plants.map((plant) => String(plant.id)));
      cursor = page.next;
    } while (cursor !== undefined);
    // Plants really were deleted and created while the walk went on.
    expect(deleted.filter(Boolean).length).toBeGreaterThanOrEqual(40);
    expect(new Set(seen).size).toBe(seen.length);
    for (const id of stable) expect(seen).toContain(id);
  }, 300_000);
});

describe('answers from the gateway for the new routes', () => {
  it.each([
    ['GET', '/plants/1'],
    ['DELETE', '/plants/1'],
    ['GET', '/plants'],
  ])('%s %s without a token is 401, with an unknown one 403', async (method, path) => {
    expect(await send(method, path, '')).toMatchObject({
      status: 401,
      text: '{"message":"Unauthorized"}',
    });
    expect(
      await send(method, path, 'pst_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA'),
    ).toMatchObject({ status: 403, text: '{"message":"Forbidden"}' });
  });

  it.each([
    ...unroutedMethods(),
    ['GET', '/plants/1/'],
    ['GET', '/plants/1/2'],
    ['GET', '/plants/'],
  ])('%s %s is 404 Not Found (no 405)', async (method, path) => {
    expect(await send(method, path)).toMatchObject({
      status: 404,
      text: '{"message":"Not Found"}',
    });
  });

  it('a preflight allows every routed method', async () => {
    const response = await fetch(`${service.url}/plants/1`, {
      method: 'OPTIONS',
      headers: { origin: 'https://app.example', 'access-control-request-method': 'DELETE' },
    });
    expect(response.status).toBe(204);
    expect(response.headers.get('access-control-allow-methods')).toBe(ALLOWED_METHODS);
  });
});
