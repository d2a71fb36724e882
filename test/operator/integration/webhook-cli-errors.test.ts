/**
 * What `npm run webhook` says when a table it needs is not there, on a real engine: which table
 * (a replay reads two), where, and the local hint only locally; with `--aws` the engine stands
 * for AWS (the SDK's own endpoint variables point at it), so the answer is the one DynamoDB
 * gives. And with `--aws` but no region, where to give one.
 */
import { PLANTS_TABLE, SUBSCRIPTIONS_TABLE } from '../../../lambda/aws/tables';
import { LOCAL_REGION } from '../../../lib/local/iam/identities';
import { LOCAL_QUEUE_NAMES, localQueueUrl } from '../../../lib/local/names';
import { startOperatorEngine, type OperatorEngine } from '../../support/operator-engine';
import { runCommand } from '../../support/run-cli';

let bare: OperatorEngine;
beforeAll(async () => {
  // The subscriptions table alone: no plants table.
  bare = await startOperatorEngine({ tables: [SUBSCRIPTIONS_TABLE] });
});
afterAll(() => bare.close());

const SINCE = ['--since', '2026-01-01T00:00:00Z'];

/** Runs `body` with the SDK's own settings (read from process.env, not the command's env). */
async function withSdkEnvironment<T>(
  env: Record<string, string | undefined>,
  body: () => Promise<T>,
): Promise<T> {
  const saved = Object.fromEntries(Object.keys(env).map((name) => [name, process.env[name]]));
  const set = (values: Record<string, string | undefined>) => {
    for (const [name, value] of Object.entries(values)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  };
  set(env);
  try {
    return await body();
  } finally {
    set(saved);
  }
}

/** `run` with the SDK pointed at the bare engine, as `--aws` would reach AWS, with its keys. */
function asAws<T>(run: () => Promise<T>): Promise<T> {
  const { accessKeyId, secretAccessKey } = bare.engine.clientConfig.credentials;
  return withSdkEnvironment(
    {
      AWS_ENDPOINT_URL_DYNAMODB: bare.engine.endpoint,
      AWS_ACCESS_KEY_ID: accessKeyId,
      AWS_SECRET_ACCESS_KEY: secretAccessKey,
      AWS_PROFILE: undefined,
    },
    run,
  );
}

it('locally, replay names the plants table as the one missing, with the local hint', async () => {
  const result = await runCommand('webhook', ['replay', ...SINCE], bare.env);
  expect(result).toEqual({
    code: 1,
    stdout: '',
    stderr: `webhook: the plants table does not exist in the local engine at ${bare.engine.endpoint} (start the engine with npm run db or npm start; they create it)\n`,
  });
});

it('with --aws, replay names the table, its option and the region, without a local hint', async () => {
  const result = await asAws(() =>
    runCommand('webhook', [
      'replay',
      '--aws',
      '--table',
      SUBSCRIPTIONS_TABLE.localName,
      '--plants-table',
      `${PLANTS_TABLE.localName}Typo`,
      '--queue',
      localQueueUrl(bare.engine.endpoint, LOCAL_QUEUE_NAMES.deliveries),
      '--region',
      LOCAL_REGION,
      ...SINCE,
    ]),
  );
  expect(result).toEqual({
    code: 1,
    stdout: '',
    stderr: `webhook: the plants table ${PLANTS_TABLE.localName}Typo (--plants-table) does not exist in AWS region ${LOCAL_REGION}\n`,
  });
});

it('with --aws, a missing subscriptions table is named as such', async () => {
  const result = await asAws(() =>
    runCommand('webhook', ['list', '--aws', '--table', 'SubsTypo', '--region', LOCAL_REGION]),
  );
  expect(result.stderr).toBe(
    `webhook: the subscriptions table SubsTypo (--table) does not exist in AWS region ${LOCAL_REGION}\n`,
  );
});

it('with --aws and no region, says where to give one', async () => {
  const result = await withSdkEnvironment(
    {
      AWS_REGION: undefined,
      AWS_DEFAULT_REGION: undefined,
      AWS_PROFILE: undefined,
      AWS_CONFIG_FILE: '/nonexistent/config',
      AWS_SHARED_CREDENTIALS_FILE: '/nonexistent/credentials',
    },
    () => runCommand('webhook', ['list', '--aws', '--table', 'T']),
  );
  expect(result).toEqual({
    code: 1,
    stdout: '',
    stderr: "webhook: no AWS region: pass --region <r> (the stack's region) or set AWS_REGION\n",
  });
});
