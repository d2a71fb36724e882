/**
 * GET /plants/{id} and GET /plants (with and without a tag): answers, ETags and 304, the path and
 * query rules, and a walk over pages. The cases that change nothing run against prod too
 * (`--read-only`): they read a plant the list shows, without creating one.
 */
import {
  CURSOR_RULES,
  INT64_MAX,
  INT64_MIN,
  LIST_TAG_RULE,
  PAGE_LIMIT,
} from '../../../../lambda/plants/schemas';
import { RESERVED_ID_RANGES, randomIdIn } from '../../reserved-ids';
import {
  check,
  errorBody,
  expectThat,
  Skip,
  type VerifyCase,
  type VerifyContext,
} from '../context';
import { CREATES } from './create';

const READS = ['plants:read'] as const;
const INT64_RULE = `id: must be an integer from ${INT64_MIN} to ${INT64_MAX}`;
const LIMIT_RULE = `limit: must be an integer from ${PAGE_LIMIT.min} to ${PAGE_LIMIT.max}`;
const PLANT = '"name":"verify","tag":"verify"';

/** The ids of a page, as written (never through a float64). */
function idsOf(text: string): string[] {
  return [...text.matchAll(/\{"id":(-?\d+)[,}]/g)].map((match) => match[1]!);
}

/** The `next` of a page, or `undefined`. */
function nextOf(text: string): string | undefined {
  return /"next":"([^"]*)"/.exec(text)?.[1];
}

/** Walks a list by `limit` pages from the first to the last; every id, in order seen. */
async function walk(t: VerifyContext, query: string, limit: number): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < 1000; page++) {
    const more = cursor === undefined ? '' : `&cursor=${encodeURIComponent(cursor)}`;
    const answer = check(await t.send('GET', `/plants?${query}&limit=${limit}${more}`), {
      status: 200,
      text: /^\{"plants":\[.*\](,"next":"[^"]+")?\}$/,
    });
    const found = idsOf(answer.text);
    expectThat(found.length <= limit, `at most ${limit} plants a page`, String(found.length));
    ids.push(...found);
    cursor = nextOf(answer.text);
    if (cursor === undefined) return ids;
  }
  throw new Skip('the walk did not end within 1000 pages');
}

/** Creates `count` plants with a fresh tag; the tag and their ids, sorted. */
async function tagged(t: VerifyContext, count: number): Promise<[string, string[]]> {
  const tag = t.freshTag();
  const ids: string[] = [];
  for (let n = 0; n < count; n++) {
    ids.push(String(await t.plant(`"name":"verify ${n}","tag":"${tag}"`)));
  }
  return [tag, ids.sort()];
}

export const READ_CASES: readonly VerifyCase[] = [
  {
    name: 'read: a plant is answered with every member and a strong ETag',
    needs: CREATES,
    changes: true,
    run: async (t) => {
      const id = await t.plant();
      check(await t.send('GET', `/plants/${id}`), {
        status: 200,
        headers: { etag: /^"\d+"$/, 'content-type': /^application\/json/ },
        text: `{"id":${id},${PLANT}}`,
      });
    },
  },
  {
    name: 'read: an absent id is 404 naming it',
    needs: READS,
    changes: false,
    run: async (t) => {
      const id = randomIdIn(RESERVED_ID_RANGES.verify[0]);
      const answer = await t.send('GET', `/plants/${id}`);
      if (answer.status === 200) throw new Skip(`plant ${id} exists`);
      check(answer, { status: 404, text: errorBody(404, `no plant with id ${id}`) });
    },
  },
  {
    name: 'read: a path id that is not the canonical int64 is 400',
    needs: READS,
    changes: false,
    run: async (t) => {
      for (const path of [
        '+5',
        '05',
        '5.0',
        '1e3',
        '-0',
        `${INT64_MAX + 1n}`,
        `${INT64_MIN - 1n}`,
      ]) {
        check(await t.send('GET', `/plants/${encodeURIComponent(path)}`), {
          status: 400,
          text: errorBody(400, INT64_RULE),
        });
      }
    },
  },
  {
    name: 'read: If-None-Match with the current ETag is 304 without a body',
    needs: CREATES,
    changes: true,
    run: async (t) => {
      const id = await t.plant();
      const etag = await t.etag(id);
      check(await t.send('GET', `/plants/${id}`, { headers: { 'if-none-match': etag } }), {
        status: 304,
        headers: { etag },
        text: '',
      });
    },
  },
  {
    name: 'read: If-None-Match with another ETag is 200',
    needs: CREATES,
    changes: true,
    run: async (t) => {
      const id = await t.plant();
      check(await t.send('GET', `/plants/${id}`, { headers: { 'if-none-match': '"999999"' } }), {
        status: 200,
        text: `{"id":${id},${PLANT}}`,
      });
    },
  },
  {
    name: 'read: If-Match that does not match is 412',
    needs: CREATES,
    changes: true,
    run: async (t) => {
      const id = await t.plant();
      check(await t.send('GET', `/plants/${id}`, { headers: { 'if-match': '"999999"' } }), {
        status: 412,
        text: /^\{"error":412,"message":"plant -?\d+ is at version \d+"\}$/,
      });
      const etag = await t.etag(id);
      check(await t.send('GET', `/plants/${id}`, { headers: { 'if-match': etag } }), {
        status: 200,
      });
    },
  },
  {
    name: 'read: a listed plant reads back with its ETag, and If-None-Match with it is 304',
    needs: READS,
    changes: false,
    run: async (t) => {
      const page = check(await t.send('GET', '/plants?limit=5'), { status: 200 });
      const id = idsOf(page.text)[0];
      if (id === undefined) throw new Skip('the first page lists no plant');
      const read = check(await t.send('GET', `/plants/${id}`), {
        status: 200,
        headers: { etag: /^"\d+"$/ },
        text: new RegExp(`^\\{"id":${id}[,}]`),
      });
      check(
        await t.send('GET', `/plants/${id}`, {
          headers: { 'if-none-match': read.headers.get('etag')! },
        }),
        { status: 304, text: '' },
      );
    },
  },
  {
    name: 'list: a page holds at most limit plants, ids with every digit',
    needs: READS,
    changes: false,
    run: async (t) => {
      const page = check(await t.send('GET', '/plants?limit=2&verify=ignored'), {
        status: 200,
        text: /^\{"plants":\[.*\](,"next":"[^"]+")?\}$/,
      });
      expectThat(idsOf(page.text).length <= 2, 'at most 2 plants', page.text.slice(0, 200));
    },
  },
  ...['0', String(PAGE_LIMIT.max + 1), 'ten', '1.5'].map((limit): VerifyCase => ({
    name: `list: limit=${limit} is 400`,
    needs: READS,
    changes: false,
    run: async (t) =>
      void check(await t.send('GET', `/plants?limit=${limit}`), {
        status: 400,
        text: errorBody(400, LIMIT_RULE),
      }),
  })),
  {
    name: 'list: a cursor that is not one is 400',
    needs: READS,
    changes: false,
    run: async (t) =>
      void check(await t.send('GET', '/plants?cursor=not-a-cursor'), {
        status: 400,
        text: errorBody(400, `cursor: ${CURSOR_RULES.any}`),
      }),
  },
  {
    name: 'list by tag: an empty tag is 400',
    needs: READS,
    changes: false,
    run: async (t) =>
      void check(await t.send('GET', '/plants?tag='), {
        status: 400,
        text: errorBody(400, `tag: ${LIST_TAG_RULE}`),
      }),
  },
  {
    name: 'list by tag: a tag no plant has is an empty list',
    needs: READS,
    changes: false,
    run: async (t) =>
      void check(await t.send('GET', `/plants?tag=${t.runTag}-none`), {
        status: 200,
        text: /^\{"plants":\[\](,"next":"[^"]+")?\}$/,
      }),
  },
  {
    name: 'list by tag: pages of one walk exactly the plants with the tag, once each',
    needs: CREATES,
    changes: true,
    run: async (t) => {
      const [tag, ids] = await tagged(t, 3);
      const seen = await walk(t, `tag=${tag}`, 1);
      expectThat(seen.slice().sort().join(',') === ids.join(','), ids.join(','), seen.join(','));
    },
  },
  {
    name: "list by tag: a tag's cursor is 400 for the list without a tag",
    needs: CREATES,
    changes: true,
    run: async (t) => {
      const [tag] = await tagged(t, 2);
      const first = check(await t.send('GET', `/plants?tag=${tag}&limit=1`), { status: 200 });
      const next = nextOf(first.text);
      expectThat(next !== undefined, 'a next after the first of two', first.text);
      check(await t.send('GET', `/plants?limit=1&cursor=${encodeURIComponent(next!)}`), {
        status: 400,
        text: errorBody(400, `cursor: ${CURSOR_RULES.sameList}`),
      });
    },
  },
  {
    name: 'list: a walk of the whole list finds the plants created for it',
    needs: CREATES,
    changes: true,
    run: async (t) => {
      const [, ids] = await tagged(t, 2);
      const seen = new Set(await walk(t, 'verify=walk', PAGE_LIMIT.max));
      const missing = ids.filter((id) => !seen.has(id));
      expectThat(
        missing.length === 0,
        `${ids.join(',')} among ${seen.size} plants`,
        `missing ${missing.join(',')}`,
      );
    },
  },
];
