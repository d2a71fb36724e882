/**
 * `sam local invoke` as docs/guides/local-development.md writes it, without Docker: the app synthesized with
 * `-c dynamoDbEndpoint=…`, each function found in the template as SAM finds it (its construct id,
 * its `aws:asset:path`, its `Handler`), and the bundle SAM would mount run on Lambda's Node with
 * `events/<function>.json` and the variables `events/sam-env.json` sets, against the engine
 * `npm run db` runs (tables and webhook queues) on loopback. As the documented setup does: the
 * authorizer event's token is made the dev token, a receiver (`npm run webhook -- listen`) runs
 * and the subscriber the deliver event names is added with `npm run webhook -- add --id`.
 */
import { ReceiveMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { LOCAL_QUEUE_NAMES, localQueueUrl } from '../../../lib/local/names';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { parseDeliveryMessage } from '../../../lambda/webhook/message';
import { addPlantStore } from '../../../lib/infra/app';
import {
  FUNCTIONS,
  FUNCTION_NAMES,
  tableEnvironment,
  type FunctionName,
} from '../../../lib/definitions/functions';
import { lambdaNode } from '../../../lib/definitions/lambda-node';
import { ensureDevToken } from '../../../lib/local/dev/dev-token';
import { LOCAL_REGION, type Engine } from '../../../lib/local/dynamodb/engine';
import { openLocalAccount } from '../../../lib/local/iam/account';
import { writeSamProfiles } from '../../../lib/local/iam/sam-profiles';
import { freePort } from '../../../lib/local/process/free-port';
import { localWebhookEnvironment, startEngineWithQueues } from '../../../lib/local/webhooks';
import { testApp } from '../../support/cdk-app';
import { runWebhookCli } from '../../../lib/operator/webhook/cli';
import { listen, type Listener } from '../../../lib/operator/webhook/listen';

const run = promisify(execFile);
const ROOT = join(__dirname, '../../..');
const event = (name: string) =>
  JSON.parse(readFileSync(join(ROOT, 'events', `${name}.json`), 'utf8'));
const samEnv = (file: string) =>
  (
    JSON.parse(readFileSync(join(ROOT, 'events', file), 'utf8')) as {
      Parameters: Record<string, string>;
    }
  ).Parameters;
const SAM_ENV = samEnv('sam-env.json');
/** Where sam-env.json says the engine is (`npm run db`'s default port on loopback). */
const SAM_ENDPOINT = new URL(SAM_ENV.AWS_ENDPOINT_URL_DYNAMODB!).origin;
/** The deliver event's one message: what the fan-out event must queue, and what is POSTed. */
const DELIVERY = parseDeliveryMessage(event('deliver').Records[0].body)!;

// Calls the handler once with the event file and writes the answer to another file: stdout
// belongs to the function's log lines. The context is what `sam local invoke` passes (the
// runtime's: a request id, the function's timeout counting down), not an empty object.
const CALLER = [
  "import { readFileSync, writeFileSync } from 'node:fs';",
  'const [bundle, event, answer] = process.argv.slice(1);',
  'const { handler } = await import(bundle);',
  'const deadline = Date.now() + 30_000;',
  "const context = { awsRequestId: 'sam-local', getRemainingTimeInMillis: () => deadline - Date.now() };",
  "writeFileSync(answer, JSON.stringify(await handler(JSON.parse(readFileSync(event, 'utf8')), context)));",
].join('\n');

interface FunctionResource {
  Handler: string;
  /** Strings, or intrinsics (a queue's `Ref`, a key's `Fn::GetAtt`) that SAM cannot resolve. */
  Environment: { Variables: Record<string, unknown> };
  Metadata: Record<string, string>;
}

let dir: string;
let engine: Engine;
/** The profiles `npm run db` writes for `sam local invoke --profile <function>`. */
let profiles: Map<string, Record<string, string>>;
let resources: Record<FunctionName, FunctionResource>;
let receiver: Listener;
/** The lines the receiver printed: one per delivery whose signature verified. */
const received: string[] = [];
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'plant-store-sam-'));
  const app = testApp(
    {
      dynamoDbEndpoint: SAM_ENDPOINT,
      // As docs/guides/local-development.md: functions for this machine's processor (x86_64 here, arm64 deployed).
      lambdaArch: 'host',
      // What `cdk synth` turns on, and SAM reads: construct paths and asset folders.
      'aws:cdk:enable-path-metadata': true,
      'aws:cdk:enable-asset-metadata': true,
    },
    { bundle: true, outdir: join(dir, 'cdk.out') },
  );
  // CDK announces each bundling on stderr; the test needs none of it.
  const stderr = jest.spyOn(process.stderr, 'write').mockImplementation(() => true);
  let stack: ReturnType<typeof addPlantStore>;
  try {
    stack = addPlantStore(app);
    app.synth();
  } finally {
    stderr.mockRestore();
  }
  const template = JSON.parse(readFileSync(join(dir, 'cdk.out', stack.templateFile), 'utf8'));
  const bySamId = new Map(
    Object.values(
      template.Resources as Record<
        string,
        { Type: string; Properties: object; Metadata: Record<string, string> }
      >,
    )
      .filter((r) => r.Type === 'AWS::Lambda::Function')
      .map((r) => [samResourceId(r.Metadata), { ...r.Properties, Metadata: r.Metadata }]),
  );
  resources = Object.fromEntries(
    FUNCTION_NAMES.map((name) => [name, bySamId.get(FUNCTIONS[name].id)]),
  ) as Record<FunctionName, FunctionResource>;

  // docs/guides/local-development.md, in its order: `npm run db`, the dev token, a receiver, the subscriber.
  // Its operator's keys in the data directory, where the webhook CLI finds them; each function's
  // session in the profiles file, as npm run db writes it.
  const account = await openLocalAccount({ dataDir: dir, log: () => undefined });
  engine = await startEngineWithQueues({ account });
  profiles = readProfiles(await writeSamProfiles(account, dir));
  const token = event('authorizer').identitySource[0].replace(/^Bearer /, '');
  await ensureDevToken({ dataDir: dir, devToken: token }, engine.clientConfig);
  const secret: string[] = [];
  const io = {
    out: (line: string) => secret.push(line),
    err: () => undefined,
    env: { ...process.env, PLANT_STORE_DB_PORT: String(engine.port), PLANT_STORE_DATA_DIR: dir },
  };
  // The receiver's port is the test's own; the URL is stored with the subscriber, not in events/.
  const port = await freePort();
  const url = `http://127.0.0.1:${port}/hook`;
  const added = await runWebhookCli(['add', '--url', url, '--id', DELIVERY.subscriberId], io);
  expect(added).toBe(0);
  receiver = await listen({
    port,
    secret: secret[0]!,
    out: (line) => received.push(line),
    err: (line) => received.push(`refused: ${line}`),
  });
}, 300_000);
afterAll(async () => {
  await receiver?.close();
  await engine?.close();
  rmSync(dir, { recursive: true, force: true });
});

/**
 * The id `sam local invoke` knows a function by, as the SAM CLI reads it: `SamResourceId` from
 * the metadata, else the construct id before `Resource` in its `aws:cdk:path`.
 */
function samResourceId(metadata: Record<string, string>): string | undefined {
  if (metadata.SamResourceId) return metadata.SamResourceId;
  const path = metadata['aws:cdk:path']?.split('/') ?? [];
  return path.at(-1) === 'Resource' ? path.at(-2) : path.at(-1);
}

/** Where SAM finds a function's code: the asset folder beside the template, `Handler`'s file. */
function bundleOf(name: FunctionName): string {
  const resource = resources[name];
  const [file, exported] = resource.Handler.split('.');
  expect(exported).toBe('handler');
  return join(dir, 'cdk.out', resource.Metadata['aws:asset:path']!, `${file}.mjs`);
}

/**
 * The environment SAM gives the container: each variable the template declares, with the value
 * sam-env.json gives it if any (SAM ignores the others), else the template's, blank where that is
 * an intrinsic SAM cannot resolve; then credentials and region. The engine's port is the test's
 * own; the host stays the loopback address of the file.
 */
function samEnvironment(name: FunctionName): Record<string, string> {
  const variables = Object.entries(resources[name].Environment.Variables).map(([key, value]) => {
    const given = SAM_ENV[key] ?? (typeof value === 'string' ? value : '');
    return [key, given.replaceAll(SAM_ENDPOINT, engine.endpoint)];
  });
  return {
    PATH: process.env.PATH ?? '',
    ...Object.fromEntries(variables),
    AWS_REGION: 'us-east-1',
    // What `--profile <function>` gives the container: that function's own role session.
    ...profiles.get(name),
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
  };
}

/** A shared credentials file's profiles, as SAM hands one to the container (AWS_… variables). */
function readProfiles(file: string): Map<string, Record<string, string>> {
  const found = new Map<string, Record<string, string>>();
  let current: Record<string, string> = {};
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    const section = /^\[(.+)\]$/.exec(line);
    if (section) found.set(section[1]!, (current = {}));
    const pair = /^(\w+) = (.+)$/.exec(line);
    if (pair) current[pair[1]!.toUpperCase()] = pair[2]!;
  }
  return found;
}

async function invoke(name: FunctionName): Promise<Record<string, unknown>> {
  const answer = join(dir, `${name}-answer.json`);
  const eventFile = join(dir, `${name}-event.json`);
  writeFileSync(eventFile, JSON.stringify(event(name)));
  await run(
    lambdaNode().path,
    ['--input-type=module', '-e', CALLER, pathToFileURL(bundleOf(name)).href, eventFile, answer],
    { env: samEnvironment(name) },
  );
  return JSON.parse(readFileSync(answer, 'utf8'));
}

describe('the template as SAM reads it', () => {
  it.each(FUNCTION_NAMES)(
    '%s: found by its construct id, its handler file in its asset',
    (name) => {
      const resource = resources[name];
      expect(resource).toBeDefined();
      expect(resource.Metadata['aws:asset:property']).toBe('Code');
      expect(existsSync(bundleOf(name))).toBe(true);
    },
  );

  it.each(FUNCTION_NAMES)('%s: declares the variables sam-env.json sets for it', (name) => {
    const declared = resources[name].Environment.Variables;
    // What npm start gives the function to reach the engine, its tables and, for the webhook's
    // functions, the queues and loopback receivers: the template declares each (SAM overrides
    // only those) and sam-env.json sets each as npm start would.
    const needed = {
      AWS_ENDPOINT_URL_DYNAMODB: SAM_ENDPOINT,
      ...tableEnvironment(name, (_, table) => table.localName),
      ...localWebhookEnvironment(name, SAM_ENDPOINT),
    };
    for (const [key, value] of Object.entries(needed)) {
      expect(declared).toHaveProperty(key);
      expect([key, SAM_ENV[key]]).toEqual([key, value]);
    }
    // A Ref or GetAtt (the queue's URL, the secrets key) would reach the function blank.
    for (const [key, value] of Object.entries(declared)) {
      if (typeof value !== 'string') expect([key, SAM_ENV[key]]).toEqual([key, expect.any(String)]);
    }
  });

  it('points the functions at the engine on loopback, as `--docker-network host` needs', () => {
    expect(new URL(SAM_ENDPOINT).hostname).toBe('127.0.0.1');
    expect(SAM_ENV.DELIVERY_QUEUE_URL).toBe(
      localQueueUrl(SAM_ENDPOINT, LOCAL_QUEUE_NAMES.deliveries),
    );
  });

  it('gives Docker Desktop the same settings through host.docker.internal', () => {
    const linux = JSON.stringify(SAM_ENV).replaceAll('127.0.0.1', 'host.docker.internal');
    expect(samEnv('sam-env.docker-desktop.json')).toEqual(JSON.parse(linux));
  });
});

/**
 * What each function's event comes to, by registry name: each may rely on those before it in
 * the registry (a client's order: authorize, create, read, list, change, delete; then the webhook). An
 * operation not named here must answer its event without a server error (`ANSWERED`).
 */
const OUTCOMES: Partial<
  Record<FunctionName, (answer: Record<string, unknown>) => Promise<void> | void>
> = {
  authorizer: (answer) => {
    // The event's token, made the dev token as docs/guides/local-development.md says.
    expect(answer).toMatchObject({ isAuthorized: true, context: { tokenId: 'tok_dev' } });
  },
  'create-plant': (answer) => {
    expect(answer.statusCode).toBe(200);
    expect(answer.body).toContain('"name":"Monstera"');
  },
  'get-plant': (answer) => {
    expect(answer.statusCode).toBe(200);
    expect(answer.body).toContain('"name":"Monstera"');
  },
  'list-plants': (answer) => {
    expect(answer.statusCode).toBe(200);
    expect(answer.body).toContain('"id":9007199254740993');
  },
  'update-plant': (answer) => {
    expect(answer).toMatchObject({ statusCode: 200, headers: { etag: '"2"' } });
    expect(answer.body).toContain('"name":"Monstera deliciosa"');
  },
  'patch-plant': (answer) => {
    expect(answer).toMatchObject({ statusCode: 200, headers: { etag: '"3"' } });
    expect(answer.body).not.toContain('"tag"');
  },
  'delete-plant': async (answer) => {
    expect(answer).toMatchObject({ statusCode: 204 });
    expect((await invoke('get-plant')).statusCode).toBe(404);
  },
  // The stream's INSERT becomes one message per subscriber on npm run db's delivery queue: for
  // the one subscriber, exactly the message the deliver event carries.
  'fan-out': async (answer) => {
    expect(answer).toEqual({ batchItemFailures: [] });
    const sqs = new SQSClient({ ...engine.clientConfig, region: LOCAL_REGION });
    try {
      const { Messages = [] } = await sqs.send(
        new ReceiveMessageCommand({
          QueueUrl: localQueueUrl(engine.endpoint, LOCAL_QUEUE_NAMES.deliveries),
          MaxNumberOfMessages: 10,
        }),
      );
      expect(Messages.map((m) => m.Body)).toEqual([event('deliver').Records[0].body]);
    } finally {
      sqs.destroy();
    }
  },
  // The message becomes a signed POST that the receiver verified with standardwebhooks.
  deliver: (answer) => {
    expect(answer).toEqual({ batchItemFailures: [] });
    expect(received).toEqual([`${DELIVERY.webhookId}\tattempt 1\t${DELIVERY.body}`]);
  },
};

/** An operation's event answered by the operation itself: past the scope check, no 5xx. */
const ANSWERED = (answer: Record<string, unknown>) => {
  expect(answer.statusCode).toEqual(expect.any(Number));
  expect(answer.statusCode).not.toBe(403);
  expect(answer.statusCode).toBeLessThan(500);
};

describe('each bundle with its event, in registry order', () => {
  it.each(FUNCTION_NAMES)('%s', async (name) => {
    const answer = await invoke(name);
    await (OUTCOMES[name] ?? ANSWERED)(answer);
  });
});
