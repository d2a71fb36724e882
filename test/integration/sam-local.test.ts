/**
 * `sam local invoke` as docs/local.md writes it, without Docker: the app synthesized with
 * `-c dynamoDbEndpoint=…`, each function found in the template as SAM finds it (its construct id,
 * its `aws:asset:path`, its `Handler`), and the bundle SAM would mount run on Lambda's Node with
 * `events/<function>.json` and the variables `events/sam-env.json` sets, against a real engine
 * on loopback. The authorizer event's token is made valid the documented way: as the dev token.
 */
import { App } from 'aws-cdk-lib';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { addPlantStore } from '../../lib/infra/app';
import {
  FUNCTIONS,
  FUNCTION_NAMES,
  tablesOf,
  type FunctionName,
} from '../../lib/definitions/functions';
import { lambdaNode } from '../../lib/definitions/lambda-node';
import { ensureDevToken } from '../../lib/local/dev-token';
import { LOCAL_CREDENTIALS, startEngine, type Engine } from '../../lib/local/engine';

const run = promisify(execFile);
const ROOT = join(__dirname, '../..');
const CONTEXT = JSON.parse(readFileSync(join(ROOT, 'cdk.json'), 'utf8')).context;
const event = (name: string) =>
  JSON.parse(readFileSync(join(ROOT, 'events', `${name}.json`), 'utf8'));
const SAM_ENV = JSON.parse(readFileSync(join(ROOT, 'events/sam-env.json'), 'utf8')) as {
  Parameters: Record<string, string>;
};

// Calls the handler once with the event file and writes the answer to another file: stdout
// belongs to the function's log lines.
const CALLER = [
  "import { readFileSync, writeFileSync } from 'node:fs';",
  'const [bundle, event, answer] = process.argv.slice(1);',
  'const { handler } = await import(bundle);',
  "writeFileSync(answer, JSON.stringify(await handler(JSON.parse(readFileSync(event, 'utf8')), {})));",
].join('\n');

interface FunctionResource {
  Handler: string;
  Environment: { Variables: Record<string, string> };
  Metadata: Record<string, string>;
}

let dir: string;
let engine: Engine;
let resources: Record<FunctionName, FunctionResource>;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'plant-store-sam-'));
  const app = new App({
    outdir: join(dir, 'cdk.out'),
    context: {
      ...CONTEXT,
      dynamoDbEndpoint: SAM_ENV.Parameters.AWS_ENDPOINT_URL_DYNAMODB,
      // What `cdk synth` turns on, and SAM reads: construct paths and asset folders.
      'aws:cdk:enable-path-metadata': true,
      'aws:cdk:enable-asset-metadata': true,
    },
  });
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

  engine = await startEngine();
  // docs/local.md: the authorizer event's token becomes valid as the dev token.
  const token = event('authorizer').identitySource[0].replace(/^Bearer /, '');
  await ensureDevToken({ dataDir: dir, devToken: token }, engine.clientConfig);
}, 180_000);
afterAll(async () => {
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
 * The environment SAM gives the container: the template's variables, those of them that
 * sam-env.json names replaced by its values (SAM ignores any other), credentials and region.
 * The engine's port is the test's own; the host stays the loopback address of the file.
 */
function samEnvironment(name: FunctionName): Record<string, string> {
  const declared = resources[name].Environment.Variables;
  const overrides = Object.fromEntries(
    Object.entries(SAM_ENV.Parameters).filter(([key]) => key in declared),
  );
  const endpoint = new URL(overrides.AWS_ENDPOINT_URL_DYNAMODB!);
  endpoint.port = String(engine.port);
  return {
    PATH: process.env.PATH ?? '',
    ...declared,
    ...overrides,
    AWS_ENDPOINT_URL_DYNAMODB: endpoint.origin,
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: LOCAL_CREDENTIALS.accessKeyId,
    AWS_SECRET_ACCESS_KEY: LOCAL_CREDENTIALS.secretAccessKey,
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
  };
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
    expect(declared).toHaveProperty('AWS_ENDPOINT_URL_DYNAMODB');
    for (const [, table] of tablesOf(name)) {
      expect(declared).toHaveProperty(table.environmentVariable);
      expect(SAM_ENV.Parameters[table.environmentVariable]).toBe(table.localName);
    }
  });

  it('points the functions at the engine on loopback, as `--docker-network host` needs', () => {
    expect(new URL(SAM_ENV.Parameters.AWS_ENDPOINT_URL_DYNAMODB!).hostname).toBe('127.0.0.1');
  });
});

describe('each bundle with its event, in the order a client would call', () => {
  it('authorizer: allows the event token once it is the dev token', async () => {
    expect(await invoke('authorizer')).toMatchObject({
      isAuthorized: true,
      context: { tokenId: 'tok_dev' },
    });
  });

  it('create-plant: stores the plant of the event', async () => {
    const answer = await invoke('create-plant');
    expect(answer.statusCode).toBe(200);
    expect(answer.body).toContain('"name":"Monstera"');
  });

  it('get-plant: reads it back by the id in its path', async () => {
    const answer = await invoke('get-plant');
    expect(answer.statusCode).toBe(200);
    expect(answer.body).toContain('"name":"Monstera"');
  });

  it('list-plants: lists it', async () => {
    const answer = await invoke('list-plants');
    expect(answer.statusCode).toBe(200);
    expect(answer.body).toContain('"id":9007199254740993');
  });

  it('delete-plant: deletes it', async () => {
    expect(await invoke('delete-plant')).toMatchObject({ statusCode: 204 });
    expect((await invoke('get-plant')).statusCode).toBe(404);
  });
});
