/**
 * The CDK app reads its `-c` context keys from their one definition (lib/definitions/settings.ts),
 * which docs/reference/settings.md is generated from: every key defined is read, and no other.
 * (A key read but not defined fails tsc: `context` takes a `ContextKey`.)
 */
import { CDK_CONTEXT } from '../../lib/definitions/settings';
import { addPlantStore } from '../../lib/infra/app';
import { testApp } from '../support/cdk-app';

it('addPlantStore reads every context key defined, and no other of its own', () => {
  const app = testApp({
    // A repository, so that the keys read only with one are read too.
    githubRepository: 'octo-org/plant-store',
    githubOwnerId: '1',
    githubRepositoryId: '2',
  });
  const read = new Set<string>();
  const tryGetContext = app.node.tryGetContext.bind(app.node);
  jest.spyOn(app.node, 'tryGetContext').mockImplementation((key: string) => {
    read.add(key);
    return tryGetContext(key);
  });
  addPlantStore(app);
  // CDK's own keys (feature flags, `aws:cdk:…`) have a prefix and a colon or an `@`.
  const own = [...read].filter((key) => /^[a-z][A-Za-z]*$/.test(key));
  expect(own.sort()).toEqual(Object.keys(CDK_CONTEXT).sort());
});
