/**
 * A change of a plant 1.1.0 stored with an empty tag, raced by another change: DynamoDB refuses
 * the first write (an empty string in the byTag index's key), the write made again with the tag
 * as its marker is refused because a concurrent change gave the tag a value meanwhile; the
 * change, which named no version, is then made as asked (200), never answered 412. The engine's
 * answers are scripted in that order, as no engine here interleaves two writes on demand; the
 * refusal and the marked write themselves are shown on DynamoDB Local (list-by-tag-engine).
 */
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { NumberValue, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { ServiceUnavailable } from '../../../lambda/http/answers';
import { plantsTable } from '../../../lambda/plants/table';

const EMPTY_KEY = Object.assign(
  new Error(
    'One or more parameter values are not valid. A value specified for a secondary index key is not supported. The AttributeValue for a key attribute cannot contain an empty string value. IndexName: byTag, IndexKey: tag',
  ),
  { name: 'ValidationException' },
);
const audit = { at: '2026-11-26T00:00:00.000Z', by: 'tok_1' };
const MAX = 2n ** 63n - 1n;

/** A table whose engine answers each UpdateItem with the next of `answers`. */
function scripted(answers: (Record<string, unknown> | Error)[]) {
  const sent: UpdateCommand[] = [];
  const client = {
    send: async (command: UpdateCommand) => {
      sent.push(command);
      const answer = answers.shift();
      if (answer === undefined) throw new Error('no more answers');
      if (answer instanceof Error) throw answer;
      return answer;
    },
  } as unknown as DynamoDBDocumentClient;
  return { table: plantsTable(client, 'plants'), sent };
}

const refusedBy = (item: Record<string, unknown>) =>
  new ConditionalCheckFailedException({
    message: 'The conditional request failed',
    $metadata: {},
    Item: Object.fromEntries(
      Object.entries(item).map(([k, v]) => [
        k,
        typeof v === 'string' ? { S: v } : { N: String(v) },
      ]),
    ),
  });

it('a PATCH without If-Match whose marked write meets a tag set meanwhile is made as asked', async () => {
  const { table, sent } = scripted([
    EMPTY_KEY,
    refusedBy({ id: String(MAX), name: 'Fern', tag: 'fern', version: 2 }),
    { Attributes: { id: new NumberValue(String(MAX)), name: 'Frond', tag: 'fern', version: 3 } },
  ]);
  expect(await table.update(MAX, { name: 'Frond' }, { audit })).toEqual({
    plant: { id: MAX, name: 'Frond', tag: 'fern' },
    version: 3,
  });
  expect(sent).toHaveLength(3);
  // The second write is the marked one (on the condition the tag is still empty), the third
  // the change as asked again.
  expect(sent[1]!.input.ConditionExpression).toContain('= :empty');
  expect(sent[2]!.input.ConditionExpression).not.toContain(':empty');
});

it('with If-Match naming another version, still 412 (the precondition is the caller’s)', async () => {
  const stored = { id: String(MAX), name: 'Fern', tag: 'fern', version: 2 };
  const { table } = scripted([EMPTY_KEY, refusedBy(stored), refusedBy(stored)]);
  expect(
    await table.update(MAX, { name: 'Frond' }, { audit, ifMatch: { any: false, versions: [1] } }),
  ).toEqual({ refused: 'version', version: 2 });
});

it('a tag that keeps going back to empty under it is unavailable (503), never a 500', async () => {
  const { table } = scripted([
    EMPTY_KEY,
    refusedBy({ id: String(MAX), name: 'Fern', tag: 'fern', version: 2 }),
    EMPTY_KEY,
  ]);
  await expect(table.update(MAX, { name: 'Frond' }, { audit })).rejects.toBeInstanceOf(
    ServiceUnavailable,
  );
});
