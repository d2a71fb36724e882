/**
 * The plant operations through their real handlers over one test store (no gateway, no
 * sandbox), for the suites that run them against real engines: dynalite, and AWS's DynamoDB
 * Local where Java is available.
 */
import { makeCreatePlantHandler } from '../../lambda/create-plant/handler';
import { makeDeletePlantHandler } from '../../lambda/delete-plant/handler';
import { makeGetPlantHandler } from '../../lambda/get-plant/handler';
import { makeListPlantsHandler } from '../../lambda/list-plants/handler';
import { makePatchPlantHandler } from '../../lambda/patch-plant/handler';
import { makeUpdatePlantHandler } from '../../lambda/update-plant/handler';
import { PLANTS_TABLE } from '../../lambda/aws/tables';
import { startEngine, type Engine } from '../../lib/local/dynamodb/engine';
import { dynamoDbLocalSkipReason, javaAvailable, startDynamoDbLocal } from './dynamodb-local';
import { createPlantEvent, plantBody, plantsEvent } from './events';
import { startTestStore, type TestStore } from './store';

/** The engines a suite runs on; without Java, a skipped test says why DynamoDB Local is not one. */
export function realEngines(): { engine: string; start: () => Promise<Engine> }[] {
  if (!javaAvailable) it.skip(`DynamoDB Local (${dynamoDbLocalSkipReason})`, () => undefined);
  return [
    { engine: 'dynalite', start: () => startEngine() },
    ...(javaAvailable ? [{ engine: 'DynamoDB Local', start: startDynamoDbLocal }] : []),
  ];
}

type Headers = Record<string, string>;

/** Every plant operation over `store`, each answering its handler's result. */
export function plantOperations(store: TestStore) {
  const deps = { plants: store.plants, tableName: PLANTS_TABLE.localName };
  const handlers = {
    create: makeCreatePlantHandler(deps),
    get: makeGetPlantHandler(deps),
    list: makeListPlantsHandler(deps),
    put: makeUpdatePlantHandler(deps),
    patch: makePatchPlantHandler(deps),
    remove: makeDeletePlantHandler(deps),
  };
  const one = (method: 'GET' | 'DELETE' | 'PUT' | 'PATCH', id: string) => ({
    method,
    route: '/plants/{id}',
    pathParameters: { id },
  });
  return {
    create: (id: string, name: string, tag?: string) =>
      handlers.create(createPlantEvent({ body: plantBody(id, { name, tag }) })),
    get: (id: string, headers?: Headers) =>
      handlers.get(plantsEvent({ ...one('GET', id), headers })),
    put: (id: string, body: string, headers?: Headers) =>
      handlers.put(plantsEvent({ ...one('PUT', id), body, headers })),
    patch: (id: string, body: string, headers?: Headers) =>
      handlers.patch(plantsEvent({ ...one('PATCH', id), body, headers })),
    remove: (id: string, headers?: Headers) =>
      handlers.remove(plantsEvent({ ...one('DELETE', id), headers })),
    list: (query: Record<string, string> = {}) =>
      handlers.list(plantsEvent({ method: 'GET', route: '/plants', query })),
  };
}

/** What `plantOperations` answers. */
export type PlantOperations = ReturnType<typeof plantOperations>;

/**
 * A store on the engine `start` starts, for the enclosing `describe`: started before its tests
 * (then `ready` is called, to seed it or keep it), closed after them, its request count zeroed
 * before each test.
 */
export function usePlantStore(
  start: () => Promise<Engine>,
  ready: (store: TestStore, ops: PlantOperations) => void | Promise<void>,
): void {
  let store: TestStore | undefined;
  beforeAll(async () => {
    store = await startTestStore(start);
    await ready(store, plantOperations(store));
    // A JVM starting on a busy machine, and a seed of thousands of plants.
  }, 300_000);
  afterAll(async () => {
    await store?.close();
  });
  beforeEach(() => {
    if (store) store.requests.length = 0;
  });
}
