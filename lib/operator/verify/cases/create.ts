/**
 * POST /plants: what it stores and answers, every rule of the body (each field's length from the
 * schema's own limits), the size and content-type limits, and ids exact at the int64 edges.
 */
import { MAX_BODY_BYTES } from '../../../../lambda/plants/json-body';
import { INT64_MAX, INT64_MIN, PLANT_FIELDS } from '../../../../lambda/plants/schemas';
import { check, errorBody, expectThat, type Scope, type VerifyCase } from '../context';

/** A case that creates plants: it claims ids (read), writes, and cleans up (delete). */
export const CREATES: readonly Scope[] = ['plants:read', 'plants:write', 'plants:delete'];
const INT64_RULE = `id: must be an integer from ${INT64_MIN} to ${INT64_MAX}`;
const PLANT = '"name":"verify","tag":"verify"';

/** A POST whose body the service must refuse (400, nothing written), at a claimed id. */
function refused(
  name: string,
  body: (id: bigint) => string,
  text: string | RegExp,
  area = 'create',
): VerifyCase {
  return {
    name: `${area}: ${name} is 400`,
    needs: CREATES,
    changes: true,
    run: async (t) => {
      const id = await t.claim();
      check(await t.send('POST', '/plants', { body: body(id) }), { status: 400, text });
      check(await t.send('GET', `/plants/${id}`), { status: 404 });
    },
  };
}

/** Each field at its limit (200, echoed) and one character over (400, naming the rule). */
const LENGTH_CASES: VerifyCase[] = Object.entries(PLANT_FIELDS).flatMap(([field, rule]) => {
  // An emoji outside the Basic Multilingual Plane: one character, two UTF-16 units.
  const members = (length: number) =>
    Object.entries(PLANT_FIELDS)
      .filter(([other, { required }]) => other === field || required)
      .map(([other]) => `"${other}":"${other === field ? '🌿'.repeat(length) : 'verify'}"`)
      .join(',');
  return [
    {
      name: `bounds: a ${field} of ${rule.maxLength} characters (emoji) is stored`,
      needs: CREATES,
      changes: true,
      run: async (t) => {
        const id = await t.plant(members(rule.maxLength));
        check(await t.send('GET', `/plants/${id}`), {
          status: 200,
          text: `{"id":${id},${members(rule.maxLength)}}`,
        });
      },
    },
    refused(
      `a ${field} of ${rule.maxLength + 1} characters`,
      (id) => `{"id":${id},${members(rule.maxLength + 1)}}`,
      errorBody(400, `${field}: must be at most ${rule.maxLength} characters`),
      'bounds',
    ),
  ];
});

/** A body of exactly `bytes` bytes creating plant `id` (padded with a member that is ignored). */
function bodyOf(id: bigint, bytes: number): string {
  const start = `{"id":${id},"name":"verify","pad":"`;
  return `${start}${'x'.repeat(bytes - start.length - 2)}"}`;
}

export const CREATE_CASES: readonly VerifyCase[] = [
  {
    name: 'create: a new plant is 200 with its name and tag, never its id',
    needs: CREATES,
    changes: true,
    run: async (t) => {
      const id = await t.claim();
      const answer = await t.send('POST', '/plants', { body: `{"id":${id},${PLANT}}` });
      if (answer.status === 200) t.created.add(id);
      check(answer, { status: 200, text: `{${PLANT}}` });
    },
  },
  {
    name: 'create: the same plant again is 200 (a safe retry)',
    needs: CREATES,
    changes: true,
    run: async (t) => {
      const id = await t.plant();
      check(await t.send('POST', '/plants', { body: `{"id":${id},${PLANT}}` }), {
        status: 200,
        text: `{${PLANT}}`,
      });
    },
  },
  {
    name: 'create: the same id with another name is 409, the plant unchanged',
    needs: CREATES,
    changes: true,
    run: async (t) => {
      const id = await t.plant();
      check(await t.send('POST', '/plants', { body: `{"id":${id},"name":"other"}` }), {
        status: 409,
        text: /^\{"error":409,"message":".+"\}$/,
      });
      check(await t.send('GET', `/plants/${id}`), { status: 200, text: `{"id":${id},${PLANT}}` });
    },
  },
  {
    name: 'create: a plant without a tag is answered without one',
    needs: CREATES,
    changes: true,
    run: async (t) => {
      const id = await t.claim();
      const answer = await t.send('POST', '/plants', { body: `{"id":${id},"name":"verify"}` });
      if (answer.status === 200) t.created.add(id);
      check(answer, { status: 200, text: '{"name":"verify"}' });
    },
  },
  {
    name: 'create: other members are ignored, neither stored nor echoed',
    needs: CREATES,
    changes: true,
    run: async (t) => {
      const id = await t.claim();
      const body = `{"extra":{"a":[1]},"id":${id},"name":"verify","createdBy":"x"}`;
      const answer = await t.send('POST', '/plants', { body });
      if (answer.status === 200) t.created.add(id);
      check(answer, { status: 200, text: '{"name":"verify"}' });
      check(await t.send('GET', `/plants/${id}`), {
        status: 200,
        text: `{"id":${id},"name":"verify"}`,
      });
    },
  },
  {
    name: 'create: an id spelled with a fraction or exponent (N.0, Ne0) is that integer',
    needs: CREATES,
    changes: true,
    run: async (t) => {
      for (const spelling of ['.0', 'e0']) {
        const id = await t.plant(PLANT, undefined, (chosen) => `${chosen}${spelling}`);
        check(await t.send('GET', `/plants/${id}`), {
          status: 200,
          text: `{"id":${id},${PLANT}}`,
        });
      }
    },
  },
  {
    name: 'create: application/*+json with parameters is a JSON content type',
    needs: CREATES,
    changes: true,
    run: async (t) => {
      const id = await t.claim();
      const answer = await t.send('POST', '/plants', {
        body: `{"id":${id},${PLANT}}`,
        contentType: 'application/vnd.verify+json; charset=utf-8',
      });
      if (answer.status === 200) t.created.add(id);
      check(answer, { status: 200, text: `{${PLANT}}` });
    },
  },
  refused('a body that is not JSON', () => '{"id":', /^\{"error":400,"message":"body: .+"\}$/),
  refused('a body that is not an object', (id) => `[${id}]`, /^\{"error":400,"message":".+"\}$/),
  refused(
    'a member named twice',
    (id) => `{"id":${id},"name":"a","name":"b"}`,
    /^\{"error":400,"message":".*name.*"\}$/,
  ),
  refused('a missing name', (id) => `{"id":${id}}`, errorBody(400, 'name: required')),
  refused(
    'a name that is not a string',
    (id) => `{"id":${id},"name":5}`,
    /^\{"error":400,"message":"name: .+"\}$/,
  ),
  refused(
    'a null tag',
    (id) => `{"id":${id},"name":"verify","tag":null}`,
    /^\{"error":400,"message":"tag: .+"\}$/,
  ),
  refused(
    'an id one past the largest int64',
    () => `{"id":${INT64_MAX + 1n},"name":"verify"}`,
    errorBody(400, INT64_RULE),
  ),
  refused(
    'an id one below the smallest int64',
    () => `{"id":${INT64_MIN - 1n},"name":"verify"}`,
    errorBody(400, INT64_RULE),
  ),
  refused('a fractional id', (id) => `{"id":${id}.5,"name":"verify"}`, errorBody(400, INT64_RULE)),
  ...LENGTH_CASES,
  {
    name: `bounds: a body of exactly ${MAX_BODY_BYTES} bytes is taken`,
    needs: CREATES,
    changes: true,
    run: async (t) => {
      const id = await t.claim();
      const answer = await t.send('POST', '/plants', { body: bodyOf(id, MAX_BODY_BYTES) });
      if (answer.status === 200) t.created.add(id);
      check(answer, { status: 200, text: '{"name":"verify"}' });
    },
  },
  {
    name: `bounds: a body of ${MAX_BODY_BYTES + 1} bytes is 413, nothing stored`,
    needs: CREATES,
    changes: true,
    run: async (t) => {
      const id = await t.claim();
      check(await t.send('POST', '/plants', { body: bodyOf(id, MAX_BODY_BYTES + 1) }), {
        status: 413,
        text: /^\{"error":413,"message":".+"\}$/,
      });
      check(await t.send('GET', `/plants/${id}`), { status: 404 });
    },
  },
  {
    name: 'bounds: text/plain is 415, nothing stored',
    needs: CREATES,
    changes: true,
    run: async (t) => {
      const id = await t.claim();
      const body = `{"id":${id},${PLANT}}`;
      check(await t.send('POST', '/plants', { body, contentType: 'text/plain' }), {
        status: 415,
        text: errorBody(415, 'content-type text/plain is not accepted; send application/json'),
      });
      check(await t.send('GET', `/plants/${id}`), { status: 404 });
    },
  },
  {
    name: 'bounds: no content type is 415',
    needs: CREATES,
    changes: true,
    run: async (t) => {
      const id = await t.claim();
      check(await t.send('POST', '/plants', { body: `{"id":${id},${PLANT}}`, contentType: null }), {
        status: 415,
        text: errorBody(415, 'content-type is required; send application/json'),
      });
    },
  },
  ...[INT64_MAX, INT64_MIN].map((edge): VerifyCase => ({
    name: `int64: the id ${edge} is stored, read and listed with every digit`,
    fixedId: edge,
    needs: CREATES,
    changes: true,
    run: async (t) => {
      const tag = t.freshTag();
      // The name marks it as verify's: a later run deletes it if this run is cut short.
      const id = await t.plant(`"name":"verify edge","tag":"${tag}"`, edge);
      check(await t.send('GET', `/plants/${id}`), {
        status: 200,
        text: `{"id":${edge},"name":"verify edge","tag":"${tag}"}`,
      });
      const listed = check(await t.send('GET', `/plants?tag=${tag}&limit=100`), {
        status: 200,
      });
      expectThat(
        listed.text.includes(`{"id":${edge},"name":"verify edge","tag":"${tag}"}`),
        `the page to hold {"id":${edge},…}`,
        listed.text.slice(0, 200),
      );
    },
  })),
  {
    name: "int64: ids one apart beyond a float64's precision are two plants",
    needs: CREATES,
    changes: true,
    run: async (t) => {
      const first = await t.plant('"name":"verify first"');
      const second = await t.plant('"name":"verify second"', first + 1n);
      check(await t.send('GET', `/plants/${first}`), {
        status: 200,
        text: `{"id":${first},"name":"verify first"}`,
      });
      check(await t.send('GET', `/plants/${second}`), {
        status: 200,
        text: `{"id":${second},"name":"verify second"}`,
      });
    },
  },
];
