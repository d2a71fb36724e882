/**
 * The length limits of `name` (1000 characters) and `tag` (100) over real HTTP against the local
 * runtime, as `npm start` runs it: each width of character at the boundary, the limits as the
 * served `openapi.json` states them, and a longer plant written straight into the table before
 * the limits existed, which is still read, listed and deleted as it is.
 */
import { DynamoDBClient, PutItemCommand } from '@aws-sdk/client-dynamodb';
import { parseJson } from '../../../lambda/http/json';
import { PLANTS_TABLE } from '../../../lambda/aws/tables';
import { sendAsDev, useLocalService } from '../../support/local-service';

const service = useLocalService('e2e-limits');

const send = (method: string, path: string, body?: string) =>
  sendAsDev(service, method, path, body);
const create = (id: string, fields: { name: unknown; tag?: unknown }) =>
  send('POST', '/plants', JSON.stringify(fields).replace('{', `{"id":${id},`));

const tooLong = (field: 'name' | 'tag', limit: number) =>
  `{"error":400,"message":"${field}: must be at most ${limit} characters"}`;

/** A string of exactly `count` code points drawn in turn from `chars`. */
const text = (chars: readonly string[], count: number) =>
  Array.from({ length: count }, (_, i) => chars[i % chars.length]).join('');

const ALPHABETS: Record<string, readonly string[]> = {
  ASCII: ['a'],
  'two-byte': ['é', 'Ж'],
  'four-byte': ['🌿', '😀'],
  mixed: ['a', 'é', '中', '🌿'],
};

describe.each(Object.entries(ALPHABETS))('%s characters', (alphabet, chars) => {
  let nextId = 1000 * (Object.keys(ALPHABETS).indexOf(alphabet) + 1);
  it.each([
    ['name', 1000],
    ['tag', 100],
  ] as const)('%s: %i characters at most', async (field, limit) => {
    for (const count of [limit - 1, limit]) {
      const id = String(nextId++);
      const fields = { name: 'Fern', [field]: text(chars, count) };
      expect(await create(id, fields)).toEqual({ status: 200, text: JSON.stringify(fields) });
      // Read back exactly as sent: every code point, none split.
      const stored = await send('GET', `/plants/${id}`);
      expect(parseJson(stored.text)).toEqual({ id: BigInt(id), ...fields });
    }
    const id = String(nextId++);
    const over = { name: 'Fern', [field]: text(chars, limit + 1) };
    expect(await create(id, over)).toEqual({ status: 400, text: tooLong(field, limit) });
    expect((await send('GET', `/plants/${id}`)).status).toBe(404);
  });
});

it('names both fields and the id in one 400, in that order', async () => {
  const body = JSON.stringify({ name: text(['🌿'], 1001), tag: text(['é'], 101) });
  expect(await send('POST', '/plants', body.replace('{', '{"id":"7",'))).toEqual({
    status: 400,
    text: JSON.stringify({
      error: 400,
      message:
        'id: must be an integer from -9223372036854775808 to 9223372036854775807; name: must be at most 1000 characters; tag: must be at most 100 characters',
    }),
  });
});

it('the served openapi.json states the limits as maxLength', async () => {
  const { components } = (await (await fetch(`${service.url}/openapi.json`)).json()) as {
    components: { schemas: Record<string, { properties: Record<string, object> }> };
  };
  const { NewPlant, StoredPlant } = components.schemas;
  expect(NewPlant!.properties.name).toMatchObject({ type: 'string', maxLength: 1000 });
  expect(NewPlant!.properties.tag).toMatchObject({ type: 'string', maxLength: 100 });
  expect(StoredPlant!.properties.name).not.toHaveProperty('maxLength');
});

describe('a longer plant stored before the limits existed', () => {
  const id = '9007199254740993';
  // ~120 KB in UTF-8: what a create could store when only the 256 KiB body bounded it.
  const old = { name: text(['a', 'é', '中', '🌿'], 48_000), tag: text(['🌿', 'x'], 500) };

  beforeAll(async () => {
    const raw = new DynamoDBClient(service.engineClientConfig);
    await raw.send(
      new PutItemCommand({
        TableName: PLANTS_TABLE.localName,
        Item: {
          id: { N: id },
          name: { S: old.name },
          tag: { S: old.tag },
          createdAt: { S: '2025-01-01T00:00:00.000Z' },
          createdBy: { S: 'tok_before_limits' },
        },
      }),
    );
    raw.destroy();
  });

  it('is read as it is', async () => {
    const answer = await send('GET', `/plants/${id}`);
    expect(answer.status).toBe(200);
    expect(parseJson(answer.text)).toEqual({ id: BigInt(id), ...old });
  });

  it('is listed as it is', async () => {
    const found: unknown[] = [];
    let cursor: string | undefined;
    do {
      const page = await send('GET', `/plants?limit=100${cursor ? `&cursor=${cursor}` : ''}`);
      expect(page.status).toBe(200);
      const { plants, next } = parseJson(page.text) as { plants: { id: bigint }[]; next?: string };
      found.push(...plants.filter((plant) => plant.id === BigInt(id)));
      cursor = next && encodeURIComponent(next);
    } while (cursor);
    expect(found).toEqual([{ id: BigInt(id), ...old }]);
  });

  it('a create that repeats it is judged by the limits (400) and changes nothing', async () => {
    const answer = await create(id, old);
    expect(answer).toEqual({
      status: 400,
      text: JSON.stringify({
        error: 400,
        message: 'name: must be at most 1000 characters; tag: must be at most 100 characters',
      }),
    });
    expect(parseJson((await send('GET', `/plants/${id}`)).text)).toEqual({
      id: BigInt(id),
      ...old,
    });
  });

  it('is deleted (204), then gone', async () => {
    expect(await send('DELETE', `/plants/${id}`)).toEqual({ status: 204, text: '' });
    expect((await send('GET', `/plants/${id}`)).status).toBe(404);
  });
});
