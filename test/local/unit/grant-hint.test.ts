/**
 * The line under an IAM denial names the methods that call the denied action on that resource
 * (on the table, on an index, on a queue or a key) and the function's grants.ts.
 */
import { grantHint } from '../../../lib/local/iam/grant-hint';

const TABLE = 'arn:aws:dynamodb:local:000000000000:table';

it.each([
  [
    'list-plants',
    'dynamodb:Query',
    `${TABLE}/plants/index/byTag`,
    "to allow it, add 'queryByTag' to tables.plants in lambda/list-plants/grants.ts",
  ],
  [
    'fan-out',
    'sqs:SendMessage',
    'arn:aws:sqs:local:000000000000:plant-store-dead-letters',
    "to allow it, add 'deadLetter' to queues.deadLetters in lambda/fan-out/grants.ts",
  ],
  [
    'get-plant',
    'dynamodb:DeleteTable',
    `${TABLE}/plants`,
    `no method of the modules that reach ${TABLE}/plants calls dynamodb:DeleteTable: a grant in lambda/get-plant/grants.ts cannot allow it`,
  ],
])('%s may not %s on %s', (functionName, action, resource, hint) => {
  expect(grantHint({ functionName, action, resource })).toBe(hint);
});
