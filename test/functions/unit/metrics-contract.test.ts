/**
 * The stack reads the metric contract without running the functions' observability: loading the
 * stack, its monitoring and the definitions it reads builds no Powertools Logger or Metrics,
 * because the Powertools packages are never even loaded.
 */
const mockLoaded: string[] = [];

// Each factory records that the package was loaded and then provides the real one.
jest.mock('@aws-lambda-powertools/logger', () => {
  mockLoaded.push('@aws-lambda-powertools/logger');
  return jest.requireActual('@aws-lambda-powertools/logger');
});
jest.mock('@aws-lambda-powertools/metrics', () => {
  mockLoaded.push('@aws-lambda-powertools/metrics');
  return jest.requireActual('@aws-lambda-powertools/metrics');
});

beforeEach(() => {
  jest.resetModules();
  mockLoaded.length = 0;
});

it.each([
  ['the stack', '../../../lib/infra/plant-store-stack'],
  ['the monitoring construct', '../../../lib/infra/constructs/monitoring'],
  ['the metric contract', '../../../lambda/observability/metrics-contract'],
])('loading %s loads no Powertools package', (_, path) => {
  const loaded: object = jest.requireActual(path);
  expect(Object.keys(loaded).length).toBeGreaterThan(0);
  expect(mockLoaded).toEqual([]);
});

it('the functions observability module does load both (the check above can see a load)', () => {
  jest.requireActual('../../../lambda/observability/powertools');
  expect(mockLoaded.sort()).toEqual([
    '@aws-lambda-powertools/logger',
    '@aws-lambda-powertools/metrics',
  ]);
});
