/**
 * Writes that land late or never answer, on real engines through a scripted proxy: a try held
 * and passed to the engine after the function has read the item and moved on, a try that hangs
 * past the SDK's request timeout. A write that may have been made is never answered with a
 * refusal (404, 409, 412) its own late try could belie, nor made twice; and a create or change
 * whose calls keep hanging answers 503 within `WRITE_BUDGET_MS`, before its function's timeout.
 */
import { WRITE_BUDGET_MS } from '../../../lambda/plants/store/calls';
import { FUNCTIONS } from '../../../lib/definitions/functions';
import type { TestStore } from '../../support/store';
import { useEngineProxy } from '../../support/engine-proxy';
import { realEngines, usePlantStore, type PlantOperations } from '../../support/plant-operations';

describe.each(realEngines())('on $engine', ({ start }) => {
  let store: TestStore;
  let ops: PlantOperations;
  usePlantStore(start, (s, o) => void ([store, ops] = [s, o]));
  const via = useEngineProxy(() => store);

  it('a PUT with If-Match sent again, its first try landing late under another change, is 503, not 412', async () => {
    await ops.create('40', 'Fern');
    let land!: () => Promise<number>;
    via.proxy.next(
      'UpdateItem',
      { kind: 'hold', held: (l) => (land = l) },
      // Before the try sent again reaches the engine, the first lands, and another client changes.
      { kind: 'before', run: async () => [await land(), await ops.patch('40', '{"tag":"x"}')] },
    );
    const answer = await via.ops().put('40', '{"name":"Fern 2"}', { 'if-match': '"1"' });
    expect(via.proxy.seen.slice(0, 3)).toEqual(['UpdateItem', 'GetItem', 'UpdateItem']);
    expect(answer.statusCode).toBe(503);
    expect(await ops.get('40')).toMatchObject({
      headers: { etag: '"3"' },
      body: '{"id":40,"name":"Fern 2","tag":"x"}',
    });
  });

  it('a DELETE with If-Match sent again, its first try landing late before a create and delete, is 503, not 404', async () => {
    await ops.create('41', 'Fern');
    let land!: () => Promise<number>;
    via.proxy.next(
      'UpdateItem',
      { kind: 'hold', held: (l) => (land = l) },
      {
        kind: 'before',
        run: async () => [await land(), await ops.create('41', 'Other'), await ops.remove('41')],
      },
    );
    const answer = await via.ops().remove('41', { 'if-match': '"1"' });
    expect(answer.statusCode).toBe(503);
  });

  it('a create whose answer was lost, two lives since, is 503, not 409', async () => {
    via.proxy.next('PutItem', {
      kind: 'drop',
      meanwhile: async () => [
        await ops.remove('42'),
        await ops.create('42', 'B'),
        await ops.remove('42'),
        await ops.create('42', 'C'),
      ],
    });
    expect((await via.ops().create('42', 'A')).statusCode).toBe(503);
    expect((await ops.get('42')).body).toBe('{"id":42,"name":"C"}');
  });

  it('a create whose answer was lost, two lives since ending in a delete, is 503 and not made twice', async () => {
    via.proxy.next('PutItem', {
      kind: 'drop',
      meanwhile: async () => [
        await ops.remove('43'),
        await ops.create('43', 'B'),
        await ops.remove('43'),
        await ops.create('43', 'C'),
        await ops.remove('43'),
      ],
    });
    expect((await via.ops().create('43', 'A')).statusCode).toBe(503);
    expect(via.proxy.seen.filter((seen) => seen === 'PutItem')).toHaveLength(1);
    expect((await ops.get('43')).statusCode).toBe(404);
  });

  it('a create whose calls keep hanging answers 503 within its budget, before the function times out', async () => {
    via.proxy.next('PutItem', { kind: 'hang' }, { kind: 'hang' }, { kind: 'hang' });
    via.proxy.next(
      'GetItem',
      { kind: 'hang' },
      { kind: 'before', run: async () => 0 },
      { kind: 'hang' },
    );
    const started = Date.now();
    expect((await via.ops().create('45', 'A')).statusCode).toBe(503);
    const took = Date.now() - started;
    // Each hang ends at the SDK's 2 s request timeout; the last call is cut off by the budget.
    expect(via.proxy.seen).toEqual(['PutItem', 'GetItem', 'GetItem', 'PutItem', 'GetItem']);
    expect(took).toBeGreaterThanOrEqual(WRITE_BUDGET_MS - 100);
    expect(took).toBeLessThan(FUNCTIONS['create-plant'].timeoutSeconds * 1000 - 500);
  }, 30_000);
});
