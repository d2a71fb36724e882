/**
 * `@plant-store/client` against the local runtime (`startLocal`, as `npm start` runs it), through
 * the e2e `fetch` that checks every answer against openapi.json: ids at the int64 edges both
 * ways, an unsafe `number` that sends nothing, errors as `PlantStoreError`, and a full walk while
 * plants are deleted, a walk of one tag, and a store outage retried and then reported. (Retry timing: unit/client-retries.test.ts;
 * in a browser: docs.test.ts.)
 */
import {
  ConflictError,
  InternalServerError,
  NotFoundError,
  PermissionDeniedError,
  PlantStore,
  PlantStoreError,
} from '@plant-store/client';
import { useLocalService } from '../../support/local-service';
import { takenMessage } from '../../../lambda/create-plant/create-plant';

const service = useLocalService('client', { concurrency: 20 });
let sent = 0;
let store: PlantStore;
beforeAll(() => {
  const checked = globalThis.fetch;
  store = new PlantStore({
    baseUrl: service.url,
    token: service.devToken,
    fetch: (request) => {
      sent++;
      return checked(request);
    },
  });
});

const EDGES = [
  -(2n ** 63n),
  2n ** 63n - 1n,
  9007199254740993n,
  9007199254740992n,
  -9007199254740993n,
  0n,
];

it.each(EDGES)('the id %p goes in and comes back with every digit', async (id) => {
  await expect(store.createPlant({ id, name: `edge ${id}` })).resolves.toEqual({
    name: `edge ${id}`,
  });
  await expect(store.getPlant(id)).resolves.toEqual({ id, name: `edge ${id}` });
  await expect(store.getPlant(String(id))).resolves.toEqual({ id, name: `edge ${id}` });
});

it('2^53 and 2^53 + 1 are two plants; deleting one leaves the other', async () => {
  await store.createPlant({ id: '9007199254740994', name: 'even', tag: 'x' });
  await store.createPlant({ id: 9007199254740995n, name: 'odd' });
  await expect(store.deletePlant(9007199254740994n)).resolves.toBe(true);
  await expect(store.deletePlant('9007199254740994')).resolves.toBe(false);
  await expect(store.getPlant(9007199254740995n)).resolves.toEqual({
    id: 9007199254740995n,
    name: 'odd',
  });
});

it('an unsafe number sends nothing', async () => {
  const before = sent;
  // eslint-disable-next-line no-loss-of-precision -- the rounding is what the client must refuse
  await expect(store.createPlant({ id: 9007199254740993, name: 'rounded' })).rejects.toThrow(
    TypeError,
  );
  await expect(store.getPlant(2 ** 53)).rejects.toThrow(TypeError);
  await expect(store.deletePlant(0.5)).rejects.toThrow(TypeError);
  expect(sent).toBe(before);
});

it('answers that are not 2xx are PlantStoreErrors: the service’s and the gateway’s', async () => {
  await store.createPlant({ id: 77, name: 'Basil' });
  const conflict = await store.createPlant({ id: 77, name: 'Mint' }).catch((e: unknown) => e);
  expect(conflict).toBeInstanceOf(ConflictError);
  expect(conflict).toBeInstanceOf(PlantStoreError);
  expect((conflict as PlantStoreError).requestId).toEqual(expect.any(String));
  expect(conflict).toMatchObject({
    status: 409,
    error: 409,
    fromGateway: false,
    message: takenMessage(77n),
  });
  await expect(store.getPlant(404404)).rejects.toBeInstanceOf(NotFoundError);
  await expect(store.getPlant(404404)).rejects.toMatchObject({
    status: 404,
    message: 'no plant with id 404404',
  });
  const stranger = new PlantStore({
    baseUrl: service.url,
    token: 'pst_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA',
  });
  await expect(stranger.listPage()).rejects.toBeInstanceOf(PermissionDeniedError);
  await expect(stranger.listPage()).rejects.toMatchObject({
    status: 403,
    error: 403,
    fromGateway: true,
    message: 'Forbidden',
  });
});

it('withResponse: the data as the call gives it, and the answer with its request id', async () => {
  await store.createPlant({ id: 4242n, name: 'Raw' });
  const { data, response } = await store.getPlant(4242n).withResponse();
  expect(data).toEqual({ id: 4242n, name: 'Raw' });
  expect(response.status).toBe(200);
  expect(response.headers.get('apigw-requestid')).toEqual(expect.any(String));
  const deleted = await store.deletePlant(4242n).withResponse();
  expect([deleted.data, deleted.response.status]).toEqual([true, 204]);
});

it('listPage answers a page and next; listPlants walks every plant once while others are deleted', async () => {
  const stable = Array.from({ length: 300 }, (_, i) => -100_000n - BigInt(i));
  const doomed = Array.from({ length: 150 }, (_, i) => -200_000n - BigInt(i));
  const all = [...stable, ...doomed];
  for (let i = 0; i < all.length; i += 15) {
    await Promise.all(all.slice(i, i + 15).map((id) => store.createPlant({ id, name: `p${id}` })));
  }
  const page = await store.listPage({ limit: 5 });
  expect(page.plants.length).toBeLessThanOrEqual(5);
  expect(page.next).toEqual(expect.any(String));

  const seen: bigint[] = [];
  let deleted = 0;
  const deleting = (async () => {
    for (let i = 0; i < doomed.length; i += 5) {
      const results = await Promise.all(doomed.slice(i, i + 5).map((id) => store.deletePlant(id)));
      deleted += results.filter(Boolean).length;
    }
  })();
  for await (const plant of store.listPlants({ pageSize: 20 })) {
    expect(typeof plant.id).toBe('bigint');
    seen.push(plant.id);
  }
  await deleting;
  expect(deleted).toBe(doomed.length);
  expect(new Set(seen).size).toBe(seen.length);
  const ids = new Set(seen);
  expect(stable.filter((id) => !ids.has(id))).toEqual([]);
  for (const id of EDGES) expect(ids.has(id)).toBe(true);
}, 300_000);

it('listPlants({ tag }) walks only that tag, in id order, every digit, across pages; a tag cursor with another tag is a BadRequestError', async () => {
  // Next to the edges, which the other cases hold with their own plants.
  const ids = [
    2n ** 63n - 2n,
    -(2n ** 63n) + 1n,
    4611686018427387904n,
    -4611686018427387905n,
    31_415_926n,
  ];
  for (const id of ids) await store.createPlant({ id, name: `tagged ${id}`, tag: 'client walk' });
  await store.createPlant({ id: 31_415_927n, name: 'other', tag: 'another' });
  const walked: bigint[] = [];
  for await (const plant of store.listPlants({ tag: 'client walk', pageSize: 2 })) {
    expect(plant.tag).toBe('client walk');
    walked.push(plant.id);
  }
  expect(walked).toEqual([...ids].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));
  const first = await store.listPage({ tag: 'client walk', limit: 2 });
  expect(first.next).toBeDefined();
  await expect(store.listPage({ tag: 'another', cursor: first.next })).rejects.toMatchObject({
    status: 400,
    name: 'BadRequestError',
  });
});

it('a store outage: its 503s are retried and then surface as a PlantStoreError; nothing is written, and the plants are back with the engine', async () => {
  await store.createPlant({ id: 5030n, name: 'Outage' });
  service.setEngineAvailable(false);
  try {
    const before = sent;
    const failure = await store.getPlant(5030n).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(InternalServerError);
    expect(failure).toMatchObject({ status: 503, error: 503, fromGateway: false, retryAfter: 1 });
    expect(sent - before).toBe(4); // the first attempt and the 3 retries of the default policy
    await expect(store.createPlant({ id: 5031n, name: 'During' })).rejects.toMatchObject({
      status: 503,
    });
  } finally {
    service.setEngineAvailable(true);
  }
  await expect(store.getPlant(5030n)).resolves.toEqual({ id: 5030n, name: 'Outage' });
  await expect(store.getPlant(5031n)).rejects.toMatchObject({ status: 404 });

  // An outage shorter than the retries is not seen at all.
  service.setEngineAvailable(false);
  const during = store.getPlant(5030n);
  await new Promise((resolve) => setTimeout(resolve, 300));
  service.setEngineAvailable(true);
  await expect(during).resolves.toEqual({ id: 5030n, name: 'Outage' });
}, 300_000);
