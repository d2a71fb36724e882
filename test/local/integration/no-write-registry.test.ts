/**
 * A clone of the registry that gives no function a write (each keeps only the methods whose
 * actions read): `startLocal`, as `npm start` runs it, judges every call by the policies that
 * registry makes, so a create fails — its PutItem refused as AWS refuses it, one log line —
 * while reads answer, and nothing is stored.
 */
import { FUNCTION_NAMES, FUNCTIONS, type FunctionName } from '../../../lib/definitions/functions';
import { QUEUE_METHODS, TABLE_METHODS, type Uses } from '../../../lib/definitions/resources';
import { sendAsDev, useLocalService } from '../../support/local-service';

const READS = /^(dynamodb:(GetItem|Scan|Query|BatchGetItem)|kms:Decrypt)$/;

/** Only the methods of `given` whose actions all read. */
function readsOf(
  catalog: Readonly<Record<string, Readonly<Record<string, readonly string[]>>>>,
  given: Readonly<Record<string, readonly string[] | undefined>> = {},
) {
  return Object.fromEntries(
    Object.entries(given).map(([key, methods]) => [
      key,
      (methods ?? []).filter((method) => catalog[key]![method]!.every((a) => READS.test(a))),
    ]),
  );
}

const NO_WRITE = Object.fromEntries(
  FUNCTION_NAMES.map((name) => [
    name,
    {
      tables: readsOf(TABLE_METHODS, FUNCTIONS[name].tables),
      queues: readsOf(QUEUE_METHODS, FUNCTIONS[name].queues),
    } as Uses,
  ]),
) as Record<FunctionName, Uses>;

const lines: string[] = [];
const service = useLocalService('no-write', {
  grants: NO_WRITE,
  log: (line) => lines.push(line),
});

it('the clone gives create-plant nothing, and the readers their reads', () => {
  expect(NO_WRITE['create-plant'].tables).toEqual({ plants: [] });
  expect(NO_WRITE['get-plant'].tables).toEqual({ plants: ['get'] });
  expect(NO_WRITE['list-plants'].tables).toEqual({ plants: ['scan', 'queryByTag'] });
});

it('a create fails (PutItem denied, one line), reads answer, nothing is stored', async () => {
  const created = await sendAsDev(service, 'POST', '/plants', '{"id":7,"name":"Monstera"}');
  expect(created.status).toBe(500);
  expect(lines.filter((line) => line.includes('[iam] denied'))).toEqual([
    '[iam] denied: create-plant may not dynamodb:PutItem on arn:aws:dynamodb:local:000000000000:table/plants',
  ]);
  expect(await sendAsDev(service, 'GET', '/plants/7')).toMatchObject({ status: 404 });
  const listed = await sendAsDev(service, 'GET', '/plants');
  expect(listed.status).toBe(200);
  expect(JSON.parse(listed.text)).toMatchObject({ plants: [] });
});
