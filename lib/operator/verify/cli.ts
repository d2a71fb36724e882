/**
 * `npm run verify`: the black-box cases against a base URL (`--url`), the running `npm start`
 * (no `--url`), or an `npm start` of its own (`--start`, for CI: free ports, a temporary data
 * directory, stopped and removed afterwards). Prints a line per case and a summary; exit code 1
 * on any failure.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { integerOption, parseCommandLine, UsageError } from '../../cli/args';
import type { CliIo } from '../../cli/run';
import { commandToken, findingNpmStart, localApiTarget, untilRecorded } from '../../npm-start/find';
import { freePort } from '../../npm-start/in-process';
import { spawnOnFreePorts } from '../../npm-start/spawn';
import { apiUrlFromOutputs } from '../../release/start-check';
import { RESERVED_ID_RANGES } from '../reserved-ids';
import { runTokenCli } from '../token-cli';
import type { ReceiverOptions } from './cases/webhook';
import { caseLine, junitXml, summaryLine } from './report';
import { runVerify, verifyPassed, type VerifyOptions } from './run';

const [positive, negative] = RESERVED_ID_RANGES.verify;

export const VERIFY_HELP = `Usage: PLANT_STORE_TOKEN=<token> npm run verify -- --url <ApiUrl> [options]

Runs the black-box cases that hold npm start to the contract against any deployment: every
operation and status (create, read, list and list by tag with paging, PUT and PATCH with
versions, If-Match and If-None-Match, delete and create again), the gateway's own answers
(401, 403, 404, CORS), the bounds (field lengths, 413, 415), ids at the int64 edges, and with
--receiver the webhook's subscribers and a signed test delivery. One line per case (pass,
FAIL with what was expected and what came, skip and why), then "N passed, N failed, N skipped".

It creates plants only at ids of its own ranges (${positive!.min} to ${positive!.max - 1n} and
${negative!.min} to ${negative!.max - 1n}), checks each is free first, leaves every other plant
alone and deletes what it created, also when a case fails.

The token's scopes are learnt from the service's answers to three requests that cannot change
anything; a case that needs a scope the token lacks is skipped, by name.

  --url <url>          the API's base URL: the stack output ApiUrl (default:
                       ${findingNpmStart('API', '                       ')})
  --outputs <file>     the ApiUrl of cdk deploy --outputs-file's JSON, instead of --url
  --start              start an npm start of its own on free ports with a temporary data
                       directory (its dev token, a write-only token and a receiver), verify it,
                       stop it and remove the directory; instead of --url
  --read-only          only GET, OPTIONS and HEAD are sent: the cases and scope probes that
                       would send another method are skipped, by name; for prod
  --receiver <url>     a URL at which the target reaches this machine's --receiver-port, for
                       the webhook cases (npm start: http://127.0.0.1:<port>; a stage: an https
                       tunnel to it); without it they are skipped
  --receiver-port <p>  the port to listen on (default: the --receiver URL's own)
  --subscriptions-table <name> --dead-letter-queue <url> [--region <r>]
                       where a deployment keeps its subscribers and queues (stack outputs), for
                       the webhook cases against a stage; without them, npm start's
  --junit <file>       also write the results as JUnit XML
  --token <token>      the token, instead of PLANT_STORE_TOKEN; avoid it: a command line is shown
                       by npm and ps, and kept in shell history
  --help               this text

  PLANT_STORE_TOKEN             the token (default without --url: the dev token of the npm
                                start that recorded its ports, sent only to its URL)
  PLANT_STORE_WRITE_ONLY_TOKEN  a token with plants:write alone, for what such a token is
                                answered (skipped without it)

Exit code: 0 when no case failed, 1 when one did, 2 for a usage mistake.`;

const OPTIONS = {
  url: { type: 'string' },
  outputs: { type: 'string' },
  token: { type: 'string' },
  start: { type: 'boolean' },
  'read-only': { type: 'boolean' },
  receiver: { type: 'string' },
  'receiver-port': { type: 'string' },
  'subscriptions-table': { type: 'string' },
  'dead-letter-queue': { type: 'string' },
  region: { type: 'string' },
  junit: { type: 'string' },
} as const;

/** Milliseconds a request may take, and the test delivery. */
const TIMEOUT_MS = 15_000;
const DELIVERY_TIMEOUT_MS = 60_000;

function httpUrl(value: string, option: string): URL {
  try {
    const url = new URL(value);
    if (url.protocol === 'http:' || url.protocol === 'https:') return url;
  } catch {
    // below
  }
  throw new UsageError(`${option} must be an http(s) URL, got ${value}`);
}

/** The ApiUrl of a `cdk deploy --outputs-file` file. */
function outputsUrl(file: string): string {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    throw new UsageError(`--outputs: cannot read ${file}`);
  }
  return apiUrlFromOutputs(text);
}

/** Runs the command; resolves with its exit code. */
export async function runVerifyCli(argv: readonly string[], io: CliIo): Promise<number> {
  const { values, help } = parseCommandLine(argv, OPTIONS);
  if (help) {
    io.out(VERIFY_HELP);
    return 0;
  }
  if ([values.start, values.url, values.outputs].filter((v) => v !== undefined).length > 1) {
    throw new UsageError('--url, --outputs and --start go apart');
  }
  const given = values.outputs === undefined ? values.url : outputsUrl(values.outputs);
  const url = given ?? (values.start ? undefined : localApiTarget(io.env).url);
  if (url !== undefined) httpUrl(url, '--url');
  const aws = values['subscriptions-table'] ?? values['dead-letter-queue'] ?? values.region;
  if (aws !== undefined && (!values['subscriptions-table'] || !values['dead-letter-queue'])) {
    throw new UsageError('--subscriptions-table and --dead-letter-queue go together');
  }
  if (aws !== undefined && !values.receiver) {
    throw new UsageError('--subscriptions-table and --dead-letter-queue go with --receiver');
  }
  let receiverPort: number | undefined;
  if (values.receiver !== undefined) {
    const receiver = httpUrl(values.receiver, '--receiver');
    receiverPort = integerOption(
      values['receiver-port'] ?? (receiver.port || undefined),
      'receiver-port',
      0,
      1,
      65535,
    );
    if (!receiverPort)
      throw new UsageError('--receiver-port is needed: the --receiver URL names no port');
  } else if (values['receiver-port'] !== undefined) {
    throw new UsageError('--receiver-port goes with --receiver');
  }
  if (values.token !== undefined) {
    io.err('verify: --token shows in ps and shell history; prefer PLANT_STORE_TOKEN');
  }
  const targetArgs = values['subscriptions-table']
    ? [
        '--aws',
        '--table',
        values['subscriptions-table'],
        '--queue',
        values['dead-letter-queue']!,
        ...(values.region ? ['--region', values.region] : []),
      ]
    : [];
  const common = {
    readOnly: values['read-only'] === true,
    timeoutMs: TIMEOUT_MS,
    signal: io.signal,
    onResult: (result: Parameters<NonNullable<VerifyOptions['onResult']>>[0]) =>
      io.out(caseLine(result)),
  };

  const report = (run: Awaited<ReturnType<typeof runVerify>>, target: string) => {
    io.out(summaryLine(run.results));
    if (values.junit) writeFileSync(values.junit, junitXml(run));
    const unprobed = run.notProbed.length
      ? ` (${run.notProbed.join(' and ')} not probed: --read-only)`
      : '';
    io.err(`verify: ${target}, token scopes: ${run.scopes.join(' ') || 'none'}${unprobed}`);
    return verifyPassed(run) ? 0 : 1;
  };

  if (values.start) return startAndVerify(io, common, report);

  const token = commandToken(values.token, url!, given === undefined, io.env);
  const receiver: ReceiverOptions | undefined = values.receiver
    ? {
        url: values.receiver,
        port: receiverPort!,
        targetArgs,
        env: io.env,
        deliveryTimeoutMs: DELIVERY_TIMEOUT_MS,
      }
    : undefined;
  const run = await runVerify({
    ...common,
    url: url!.endsWith('/') ? url!.slice(0, -1) : url!,
    token,
    writeOnlyToken: io.env.PLANT_STORE_WRITE_ONLY_TOKEN || undefined,
    receiver,
  });
  return report(run, url!);
}

/**
 * `--start`: an npm start of its own on free ports and a temporary data directory, a write-only
 * token made there and a receiver on a free port; stopped and removed whatever happens.
 */
async function startAndVerify(
  io: CliIo,
  common: Omit<VerifyOptions, 'url' | 'token'>,
  report: (run: Awaited<ReturnType<typeof runVerify>>, target: string) => number,
): Promise<number> {
  const dataDir = mkdtempSync(join(tmpdir(), 'plant-store-verify-'));
  const started = await spawnOnFreePorts(dataDir);
  try {
    const token = await untilRecorded(
      dataDir,
      () => started.child.exitCode !== null || io.signal?.aborted === true,
    );
    if (io.signal?.aborted) throw new Error('stopped by a signal before the cases ran');
    const env = { ...io.env, PLANT_STORE_DATA_DIR: dataDir, PLANT_STORE_DB_PORT: '' };
    const out: string[] = [];
    const made = await runTokenCli(
      ['create', '--name', 'verify write-only', '--scopes', 'plants:write'],
      { out: (line) => out.push(line), err: () => undefined, env },
    );
    if (made !== 0 || !out[0]) throw new Error('could not make a write-only token in npm start');
    const port = await freePort();
    const run = await runVerify({
      ...common,
      url: started.url,
      token,
      writeOnlyToken: out[0],
      receiver: {
        url: `http://127.0.0.1:${port}/verify`,
        port,
        targetArgs: [],
        env,
        deliveryTimeoutMs: DELIVERY_TIMEOUT_MS,
      },
    });
    return report(run, `npm start at ${started.url} (started for this run)`);
  } finally {
    await started.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
