/**
 * A local account (lib/local/iam/) in front of a real engine with the webhook's queues and KMS,
 * for a suite that calls them as the identities `npm start` issues: `as(keys)` settings sign
 * with any keys, `asSandbox(name)` as a new sandbox of a function (a session of its role).
 * Started before the suite's tests, closed after; `lines` holds the denials it logged.
 */
import type { Engine } from '../../lib/local/dynamodb/engine';
import { LOCAL_REGION } from '../../lib/local/dynamodb/engine';
import { openLocalAccount, type LocalAccount } from '../../lib/local/iam/account';
import { startEngineWithQueues } from '../../lib/local/webhooks';

/** Keys as the SDK takes them. */
export type Keys = { accessKeyId: string; secretAccessKey: string; sessionToken?: string };

/** What the suite reads once its `beforeAll` has run. */
export interface AccountUnderTest {
  readonly account: LocalAccount;
  readonly engine: Engine;
  readonly lines: string[];
  as(credentials: Keys): {
    endpoint: string;
    region: string;
    credentials: Keys;
    maxAttempts: number;
  };
  asSandbox(name: string): ReturnType<AccountUnderTest['as']>;
}

export function useLocalAccount(): AccountUnderTest {
  const ready = { lines: [] as string[] } as {
    -readonly [K in keyof AccountUnderTest]: AccountUnderTest[K];
  };
  ready.as = (credentials) => ({
    endpoint: ready.engine.endpoint,
    region: LOCAL_REGION,
    credentials,
    maxAttempts: 1,
  });
  ready.asSandbox = (name) => {
    const env = ready.account.sandboxCredentials(name);
    return ready.as({
      accessKeyId: env.AWS_ACCESS_KEY_ID!,
      secretAccessKey: env.AWS_SECRET_ACCESS_KEY!,
      sessionToken: env.AWS_SESSION_TOKEN!,
    });
  };
  beforeAll(async () => {
    ready.account = await openLocalAccount({ log: (line) => ready.lines.push(line) });
    ready.engine = await startEngineWithQueues({ account: ready.account });
  });
  afterAll(() => ready.engine?.close());
  return ready;
}
