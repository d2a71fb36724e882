/**
 * The authorizer with a tokens table injected in place of DynamoDB: it asks the table for the
 * token's hash and nothing else, allows what the table holds, and denies by failing when the
 * table cannot be read (throttled: `unavailable`; anything else: `error`).
 */
import { makeAuthorizerHandler } from '../../../lambda/authorizer/handler';
import { generateToken, hashToken, tokenItem } from '../../../lambda/tokens/token';
import type { StoredTokenItem } from '../../../lambda/tokens/table';
import { authorizerEvent } from '../../support/events';
import { captureOutput, type CapturedOutput } from '../../support/output';

const { token, tokenId } = generateToken();
const stored: StoredTokenItem = {
  ...tokenItem(token, tokenId, { name: 'u', scopes: ['plants:read'] }),
};

let output: CapturedOutput;
beforeEach(() => {
  output = captureOutput();
});
afterEach(() => output.restore());

const outcomes = () =>
  output
    .json()
    .filter((line) => 'level' in line)
    .map((line) => line.message);

it('reads the token by its hash and allows what the table holds', async () => {
  const asked: string[] = [];
  const authorize = makeAuthorizerHandler({
    table: {
      get: async (hash) => {
        asked.push(hash);
        return hash === stored.hash ? stored : undefined;
      },
    },
  });
  expect(await authorize(authorizerEvent(`Bearer ${token}`))).toEqual({
    isAuthorized: true,
    context: { tokenId, name: 'u', scopes: 'plants:read', scopesRevision: 2 },
  });
  expect(await authorize(authorizerEvent(`Bearer ${generateToken().token}`))).toEqual({
    isAuthorized: false,
  });
  expect(asked).toEqual([hashToken(token), expect.not.stringMatching(hashToken(token))]);
  expect(outcomes()).toEqual(['allowed', 'denied']);
});

it.each([
  ['a throttled table', 'ThrottlingException', 'unavailable'],
  ['a failing table', 'AccessDeniedException', 'error'],
])('%s denies by failing, logged as %s', async (_, name, outcome) => {
  const failure = Object.assign(new Error(`read of ${hashToken(token)} failed`), { name });
  const authorize = makeAuthorizerHandler({ table: { get: () => Promise.reject(failure) } });
  await expect(authorize(authorizerEvent(`Bearer ${token}`))).rejects.toThrow(
    'token table unreadable',
  );
  expect(outcomes()).toEqual([outcome]);
  expect(output.lines.join('\n')).not.toContain(hashToken(token));
});
