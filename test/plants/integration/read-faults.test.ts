/**
 * Faults for GET /plants/{id}, GET /plants, PUT, PATCH and DELETE /plants/{id}: throttling injected inside
 * the SDK's retry loop against a real engine is 503 with Retry-After after the retries, and a
 * bug is a 500 that says nothing of internals — the plants-table module maps both for every call.
 */
import { ProvisionedThroughputExceededException } from '@aws-sdk/client-dynamodb';
import { makeDeletePlantHandler } from '../../../lambda/delete-plant/handler';
import { makeGetPlantHandler } from '../../../lambda/get-plant/handler';
import { makeListPlantsHandler } from '../../../lambda/list-plants/handler';
import { makePatchPlantHandler } from '../../../lambda/patch-plant/handler';
import { makeUpdatePlantHandler } from '../../../lambda/update-plant/handler';
import { makeDocumentClient } from '../../../lambda/aws/dynamodb';
import { PLANTS_TABLE } from '../../../lambda/aws/tables';
import { plantsEvent } from '../../support/events';
import { captureOutput, type CapturedOutput } from '../../support/output';
import { countRequests, startTestStore, type TestStore } from '../../support/store';

const OPERATIONS = [
  {
    name: 'GET /plants/{id}',
    make: makeGetPlantHandler,
    event: plantsEvent({ method: 'GET', route: '/plants/{id}', pathParameters: { id: '1' } }),
    command: 'GetItemCommand',
  },
  {
    name: 'GET /plants',
    make: makeListPlantsHandler,
    event: plantsEvent({ method: 'GET', route: '/plants', query: { limit: '5' } }),
    command: 'ScanCommand',
  },
  {
    name: 'DELETE /plants/{id}',
    make: makeDeletePlantHandler,
    event: plantsEvent({ method: 'DELETE', route: '/plants/{id}', pathParameters: { id: '1' } }),
    // The delete's first write marks the plant deleted.
    command: 'UpdateItemCommand',
  },
  ...(
    [
      ['PUT /plants/{id}', 'PUT', makeUpdatePlantHandler],
      ['PATCH /plants/{id}', 'PATCH', makePatchPlantHandler],
    ] as const
  ).map(([name, method, make]) => ({
    name,
    make,
    event: plantsEvent({
      method,
      route: '/plants/{id}',
      pathParameters: { id: '1' },
      body: '{"name":"x"}',
    }),
    command: 'UpdateItemCommand',
  })),
];

let store: TestStore;
let logged: CapturedOutput;
beforeAll(async () => {
  store = await startTestStore();
});
afterAll(async () => {
  await store.close();
});
beforeEach(() => {
  logged = captureOutput();
});
afterEach(() => {
  logged.restore();
});

describe.each(OPERATIONS)('$name', ({ make, event, command }) => {
  it('throttled through the retries is 503 with Retry-After', async () => {
    const plants = makeDocumentClient(store.engine.clientConfig);
    const attempts = countRequests(plants);
    plants.middlewareStack.add(
      () => async () => {
        throw new ProvisionedThroughputExceededException({ message: 'throttled', $metadata: {} });
      },
      { step: 'deserialize', name: 'throttle' },
    );
    const answer = await make({ plants, tableName: PLANTS_TABLE.localName })(event);
    expect(answer).toMatchObject({
      statusCode: 503,
      headers: { 'retry-after': '1', 'content-type': 'application/json' },
      body: '{"error":503,"message":"the store is unavailable; retry after the number of seconds in Retry-After"}',
    });
    expect(attempts).toEqual([command, command, command]);
    plants.destroy();
  });

  it('a bug is 500 with a generic body, logged with the request id', async () => {
    const plants = makeDocumentClient(store.engine.clientConfig);
    plants.middlewareStack.add(
      () => async () => {
        throw new TypeError('secret-table-arn exploded');
      },
      { step: 'initialize', name: 'bug' },
    );
    const answer = await make({ plants, tableName: PLANTS_TABLE.localName })(event);
    expect(answer).toMatchObject({
      statusCode: 500,
      body: '{"error":500,"message":"internal error; the request id identifies it in the service log"}',
    });
    expect(answer.headers).not.toHaveProperty('retry-after');
    const log = logged.lines.join('\n');
    expect(log).toContain(event.requestContext.requestId);
    expect(log).toContain('secret-table-arn');
    plants.destroy();
  });
});
