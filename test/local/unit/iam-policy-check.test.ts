/**
 * The local account checks each policy as IAM does when a stack is deployed: one that IAM would
 * refuse (a syntax error, an action it does not know) fails `npm start`, naming the policy.
 */
import { checkPolicy, type PolicyDocument } from '../../../lib/local/iam/evaluator';

const TABLE = 'arn:aws:dynamodb:us-east-1:000000000000:table/plants';
/** A one-statement policy; `Effect` as IAM spells it unless a test misspells it. */
const allow = (Action: string, Effect = 'Allow'): PolicyDocument => ({
  Version: '2012-10-17',
  Statement: [{ Effect: Effect as 'Allow', Action, Resource: TABLE }],
});

it('a policy of actions IAM knows is checked', async () => {
  await expect(checkPolicy('reader', allow('dynamodb:GetItem'), 'identity')).resolves.toBeDefined();
  await expect(checkPolicy('reader', allow('dynamodb:Get*'), 'identity')).resolves.toBeDefined();
});

it('an action IAM does not know is refused, naming the policy and the action', async () => {
  await expect(checkPolicy('reader', allow('dynamodb:GetItems'), 'identity')).rejects.toThrow(
    'the policy reader grants dynamodb:GetItems, which IAM does not know',
  );
});

it('a syntax error is refused, naming the policy', async () => {
  await expect(
    checkPolicy('reader', allow('dynamodb:GetItem', 'Allowed'), 'identity'),
  ).rejects.toThrow(/^the policy reader is invalid: /);
});
