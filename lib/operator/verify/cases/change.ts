/**
 * PUT, PATCH and DELETE: versions and their ETags, If-Match and If-None-Match, media types, what
 * a write-only token is answered, and an id deleted and created again (a life of its own: no
 * ETag of the earlier life matches it).
 */
import {
  CHANGES,
  check,
  errorBody,
  expectThat,
  nextEtag,
  type VerifyCase,
  type VerifyContext,
} from '../context';
import { CREATES } from './create';

/** What a change case needs: a token that creates, deletes and changes plants (PUT, PATCH). */
const CHANGING = [...CREATES, CHANGES] as const;

const PLANT = '"name":"verify","tag":"verify"';
const STALE = /^\{"error":412,"message":"plant -?\d+ is at version \d+"\}$/;

/** The service's 412 for a plant at `etag`'s version. */
const staleAt = (id: bigint, etag: string) => ({
  status: 412,
  text: errorBody(412, `plant ${id} is at version ${etag.slice(1, -1)}`),
});

/** The plant `id` is still as created: same members, same ETag. */
async function unchanged(
  t: VerifyContext,
  id: bigint,
  etag: string,
  text = `{"id":${id},${PLANT}}`,
) {
  check(await t.send('GET', `/plants/${id}`), { status: 200, headers: { etag }, text });
}

const merge = { 'content-type': 'application/merge-patch+json' };

export const CHANGE_CASES: readonly VerifyCase[] = [
  {
    name: 'put: PUT replaces the members, answered with the next ETag',
    needs: CHANGING,
    changes: true,
    run: async (t) => {
      const id = await t.plant();
      const etag = await t.etag(id);
      check(
        await t.send('PUT', `/plants/${id}`, {
          body: '{"name":"verify put"}',
          headers: { 'if-match': etag },
        }),
        {
          status: 200,
          headers: { etag: nextEtag(etag) },
          text: `{"id":${id},"name":"verify put"}`,
        },
      );
      await unchanged(t, id, nextEtag(etag), `{"id":${id},"name":"verify put"}`);
    },
  },
  {
    name: "put: an id member other than the path's is 400",
    needs: CHANGING,
    changes: true,
    run: async (t) => {
      const id = await t.plant();
      const etag = await t.etag(id);
      check(await t.send('PUT', `/plants/${id}`, { body: `{"id":${id - 1n},"name":"x"}` }), {
        status: 400,
        text: /^\{"error":400,"message":"id: .+"\}$/,
      });
      await unchanged(t, id, etag);
    },
  },
  {
    name: 'put: an absent plant is 404, and nothing is created',
    needs: CHANGING,
    changes: true,
    run: async (t) => {
      const id = await t.claim();
      check(await t.send('PUT', `/plants/${id}`, { body: '{"name":"verify"}' }), { status: 404 });
      check(await t.send('GET', `/plants/${id}`), { status: 404 });
    },
  },
  {
    name: 'put: If-None-Match: * on an existing plant is 412',
    needs: CHANGING,
    changes: true,
    run: async (t) => {
      const id = await t.plant();
      const etag = await t.etag(id);
      check(
        await t.send('PUT', `/plants/${id}`, {
          body: '{"name":"x"}',
          headers: { 'if-none-match': '*' },
        }),
        {
          status: 412,
          text: STALE,
        },
      );
      await unchanged(t, id, etag);
    },
  },
  {
    name: 'patch: a merge patch changes one member, answered with the next ETag',
    needs: CHANGING,
    changes: true,
    run: async (t) => {
      const id = await t.plant();
      const etag = await t.etag(id);
      check(
        await t.send('PATCH', `/plants/${id}`, {
          body: '{"name":"verify patched"}',
          headers: merge,
        }),
        {
          status: 200,
          headers: { etag: nextEtag(etag) },
          text: `{"id":${id},"name":"verify patched","tag":"verify"}`,
        },
      );
    },
  },
  {
    name: 'patch: {"tag":null} removes the tag (application/json too)',
    needs: CHANGING,
    changes: true,
    run: async (t) => {
      const id = await t.plant();
      check(await t.send('PATCH', `/plants/${id}`, { body: '{"tag":null}' }), {
        status: 200,
        text: `{"id":${id},"name":"verify"}`,
      });
    },
  },
  {
    name: 'patch: {"name":null} is 400, the plant unchanged',
    needs: CHANGING,
    changes: true,
    run: async (t) => {
      const id = await t.plant();
      const etag = await t.etag(id);
      check(await t.send('PATCH', `/plants/${id}`, { body: '{"name":null}', headers: merge }), {
        status: 400,
        text: /^\{"error":400,"message":"name: .+"\}$/,
      });
      await unchanged(t, id, etag);
    },
  },
  {
    name: 'patch: a patch that changes nothing makes no new version',
    needs: CHANGING,
    changes: true,
    run: async (t) => {
      const id = await t.plant();
      const etag = await t.etag(id);
      for (const body of ['{}', '{"name":"verify"}']) {
        check(await t.send('PATCH', `/plants/${id}`, { body, headers: merge }), {
          status: 200,
          headers: { etag },
        });
      }
      await unchanged(t, id, etag);
    },
  },
  {
    name: 'patch: application/json-patch+json is 415 with Accept-Patch',
    needs: CHANGING,
    changes: true,
    run: async (t) => {
      const id = await t.plant();
      const etag = await t.etag(id);
      check(
        await t.send('PATCH', `/plants/${id}`, {
          body: '[{"op":"replace","path":"/name","value":"x"}]',
          contentType: 'application/json-patch+json',
        }),
        {
          status: 415,
          headers: { 'accept-patch': /application\/merge-patch\+json/ },
          text: /^\{"error":415,"message":".+"\}$/,
        },
      );
      await unchanged(t, id, etag);
    },
  },
  {
    name: 'patch: an absent plant is 404, and nothing is created',
    needs: CHANGING,
    changes: true,
    run: async (t) => {
      const id = await t.claim();
      check(await t.send('PATCH', `/plants/${id}`, { body: '{"name":"x"}', headers: merge }), {
        status: 404,
        text: errorBody(404, `no plant with id ${id}`),
      });
      check(await t.send('GET', `/plants/${id}`), { status: 404 });
    },
  },
  ...(['PATCH', 'PUT', 'DELETE'] as const).map((method): VerifyCase => ({
    name: `if-match: a stale If-Match on ${method} is 412, nothing changed`,
    needs: CHANGING,
    changes: true,
    run: async (t) => {
      const id = await t.plant();
      // The version from a change's own answer (not a read's): one change later, the ETag
      // before it is stale.
      const changed = check(
        await t.send('PATCH', `/plants/${id}`, { body: '{"tag":"verify 2"}', headers: merge }),
        { status: 200, headers: { etag: /^"\d+"$/ } },
      );
      const current = changed.headers.get('etag')!;
      const first = `"${Number(current.slice(1, -1)) - 1}"`;
      const body = method === 'DELETE' ? undefined : '{"name":"verify stale"}';
      check(
        await t.send(method, `/plants/${id}`, { body, headers: { 'if-match': first } }),
        staleAt(id, current),
      );
      await unchanged(t, id, current, `{"id":${id},"name":"verify","tag":"verify 2"}`);
    },
  })),
  {
    name: 'if-match: * matches an existing plant',
    needs: CHANGING,
    changes: true,
    run: async (t) => {
      const id = await t.plant();
      check(
        await t.send('PATCH', `/plants/${id}`, {
          body: '{"name":"verify star"}',
          headers: { 'if-match': '*' },
        }),
        {
          status: 200,
          text: `{"id":${id},"name":"verify star","tag":"verify"}`,
        },
      );
    },
  },
  {
    name: 'write-only token: PUT and PATCH answer 204 with the new ETag, never the plant',
    needs: CHANGING,
    changes: true,
    writeOnlyToken: true,
    run: async (t) => {
      const id = await t.plant();
      const etag = await t.etag(id);
      const token = t.target.writeOnlyToken!;
      check(await t.send('PUT', `/plants/${id}`, { token, body: '{"name":"verify w"}' }), {
        status: 204,
        headers: { etag: nextEtag(etag) },
        text: '',
      });
      check(
        await t.send('PATCH', `/plants/${id}`, { token, body: '{"tag":"w"}', headers: merge }),
        {
          status: 204,
          headers: { etag: nextEtag(nextEtag(etag)) },
          text: '',
        },
      );
    },
  },
  {
    name: 'delete: DELETE is 204 without a body, then the plant is 404',
    needs: CHANGING,
    changes: true,
    run: async (t) => {
      const id = await t.plant();
      check(await t.remove(id), { status: 204, text: '' });
      check(await t.send('GET', `/plants/${id}`), {
        status: 404,
        text: errorBody(404, `no plant with id ${id}`),
      });
    },
  },
  {
    name: 'delete: an absent plant is 404',
    needs: CHANGING,
    changes: true,
    run: async (t) => {
      const id = await t.claim();
      check(await t.send('DELETE', `/plants/${id}`), {
        status: 404,
        text: errorBody(404, `no plant with id ${id}`),
      });
    },
  },
  {
    name: 're-create: a deleted id is created again, and no ETag of its first life matches',
    needs: CHANGING,
    changes: true,
    run: async (t) => {
      const id = await t.plant();
      const old = await t.etag(id);
      check(await t.remove(id, { 'if-match': old }), { status: 204 });
      await t.plant('"name":"verify again"', id);
      const etag = await t.etag(id);
      expectThat(etag !== old, `an ETag other than ${old}`, etag);
      check(await t.send('GET', `/plants/${id}`, { headers: { 'if-none-match': old } }), {
        status: 200,
        text: `{"id":${id},"name":"verify again"}`,
      });
      check(
        await t.send('PATCH', `/plants/${id}`, {
          body: '{"name":"x"}',
          headers: { 'if-match': old },
        }),
        {
          status: 412,
          text: STALE,
        },
      );
      await unchanged(t, id, etag, `{"id":${id},"name":"verify again"}`);
    },
  },
];
