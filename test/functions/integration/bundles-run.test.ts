/**
 * The built bundles, exactly as deployed (aliases and all), run in a fresh process on Lambda's
 * Node, started as Lambda starts them (its runtime's flags, through the start wrapper), against
 * real engines — dynalite, and DynamoDB Local where Java is available — so that a
 * trim in `lib/definitions/bundling.ts` that broke a real call would fail here: every function of the
 * registry answers a real request; create-plant's create, retry and conflict paths all run.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { makeDocumentClient } from '../../../lambda/aws/dynamodb';
import { ALL_SCOPES, generateToken, tokenItem } from '../../../lambda/tokens/token';
import { TOKENS_TABLE, TokensTable } from '../../../lambda/tokens/table';
import { API } from '../../../lib/definitions/api';
import { firstEvent } from '../../../lib/lab/bench/events';
import { buildFunctions, type BuiltFunction } from '../../../lib/definitions/build';
import { PROJECT_ROOT } from '../../../lib/definitions/bundling';
import {
  FUNCTIONS,
  FUNCTION_NAMES,
  tableEnvironment,
  type FunctionName,
} from '../../../lib/definitions/functions';
import {
  lambdaNode,
  lambdaRuntimeFlags,
  START_WRAPPER,
} from '../../../lib/definitions/lambda-node';
import { LOCAL_REGION, startEngine, type Engine } from '../../../lib/local/dynamodb/engine';
import {
  dynamoDbLocalSkipReason,
  javaAvailable,
  startDynamoDbLocal,
} from '../../support/dynamodb-local';

const run = promisify(execFile);

// Calls the handler with each event of a JSON file, in one process (the later calls warm), and
// writes the answers to another file, and the built-in modules loaded to a third: stdout belongs
// to the function's log lines. It takes `node:fs` without the ES module facade, whose making
// loads `node:fs/promises` (lambda/aws/stubs/node-fs.ts): the list is the bundle's alone.
const CALLER = [
  "const { readFileSync, writeFileSync } = process.getBuiltinModule('node:fs');",
  'const [bundle, events, answers] = process.argv.slice(1);',
  'const { handler } = await import(bundle);',
  'const results = [];',
  "for (const event of JSON.parse(readFileSync(events, 'utf8'))) results.push(await handler(event, {}));",
  'writeFileSync(answers, JSON.stringify(results));',
  "writeFileSync(answers + '.modules', JSON.stringify(process.moduleLoadList));",
].join('\n');

const ENGINES = [
  { engine: 'dynalite', start: () => startEngine() },
  ...(javaAvailable ? [{ engine: 'DynamoDB Local', start: startDynamoDbLocal }] : []),
];
if (!javaAvailable) it.skip(`DynamoDB Local (${dynamoDbLocalSkipReason})`, () => undefined);

let dir: string;
let built: BuiltFunction[];
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'plant-store-bundles-'));
  built = await buildFunctions(join(dir, 'bundles'));
}, 300_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe.each(ENGINES)('on $engine', ({ engine: label, start }) => {
  let engine: Engine;
  let token: string;
  beforeAll(async () => {
    engine = await start();
    const generated = generateToken();
    token = generated.token;
    const client = makeDocumentClient(engine.clientConfig);
    await new TokensTable(client, TOKENS_TABLE.localName).put(
      tokenItem(token, generated.tokenId, { name: 'bundles', scopes: ALL_SCOPES }),
    );
    client.destroy();
  }, 300_000);
  afterAll(() => engine.close());

  /**
   * Runs a bundle on `events` in one fresh process, as Lambda starts it (its runtime's command
   * line, through the function's start wrapper unless `wrapped` is false, with `extraFlags`):
   * the answers, what the process wrote on stdout (the function's log lines), and the built-in
   * modules it loaded.
   */
  async function runBundle(
    name: FunctionName,
    events: unknown[],
    { wrapped = true, extraFlags = [] as string[] } = {},
  ): Promise<{ answers: Record<string, unknown>[]; stdout: string; modules: string[] }> {
    const fn = built.find((candidate) => candidate.name === name)!;
    const [eventsFile, answersFile] = [
      join(dir, `${name}-events.json`),
      join(dir, `${name}-answers.json`),
    ];
    writeFileSync(eventsFile, JSON.stringify(events));
    const command = [
      ...lambdaRuntimeFlags(FUNCTIONS[name].memorySize),
      ...extraFlags,
      '--input-type=module',
      '-e',
      CALLER,
      pathToFileURL(fn.file).href,
      eventsFile,
      answersFile,
    ];
    const [file, args] = wrapped
      ? [join(PROJECT_ROOT, START_WRAPPER.source), [lambdaNode().path, ...command]]
      : [lambdaNode().path, command];
    const { stdout } = await run(file, args, {
      env: {
        PATH: process.env.PATH ?? '',
        AWS_REGION: LOCAL_REGION,
        // The engine's operator: this suite runs the bundles, not npm start's sandboxes.
        AWS_ACCESS_KEY_ID: engine.clientConfig.credentials.accessKeyId,
        AWS_SECRET_ACCESS_KEY: engine.clientConfig.credentials.secretAccessKey,
        AWS_ENDPOINT_URL_DYNAMODB: engine.endpoint,
        AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
        ...tableEnvironment(name, (_key, table) => table.localName),
      },
    });
    return {
      answers: JSON.parse(readFileSync(answersFile, 'utf8')),
      stdout,
      modules: JSON.parse(readFileSync(`${answersFile}.modules`, 'utf8')),
    };
  }

  const invoke = async (name: FunctionName, events: unknown[]) =>
    (await runBundle(name, events)).answers;

  // The SDK reads the shared config files on a client's first call, with `node:fs/promises`, whose
  // loading loads `readline` and the REPL's history; the bundles read them on `node:fs`
  // (lambda/aws/stubs/fs-promises.ts, node-fs.ts): neither the import nor the call loads it.
  it.each(FUNCTION_NAMES)(
    `%s answers a real request on ${label}, loading no node:fs/promises`,
    async (name) => {
      const id = String(Date.now() * 1000 + FUNCTION_NAMES.indexOf(name));
      const event = firstEvent(name, token, id);
      if (event === undefined) return; // no route reaches it: nothing to call
      const {
        answers: [answer],
        modules,
      } = await runBundle(name, [event]);
      if (name === API.authorizer.function) expect(answer).toMatchObject({ isAuthorized: true });
      else expect(answer!.statusCode).toBeLessThan(500);
      expect(modules).toContain('NativeModule fs');
      expect(modules.filter((module) => /fs\/promises|readline/.test(module))).toEqual([]);
    },
  );

  it(`create-plant: created, a safe retry and a conflict on ${label}`, async () => {
    const id = '9007199254740993';
    const create = firstEvent('create-plant', token, id, { name: 'Monstera' });
    const answers = await invoke('create-plant', [
      create,
      create,
      firstEvent('create-plant', token, id, { name: 'Fern' }),
    ]);
    expect(answers.map((answer) => answer.statusCode)).toEqual([200, 200, 409]);
    expect(JSON.parse(String(answers[0]!.body))).toEqual({ name: 'Monstera', tag: 'aroid' });
  });

  // The engine's endpoint is http:// as npm start's are: the SDK imports node:http on the first
  // call, which the bundle replaces by Node's module without the ES module facade whose making
  // reads WebSocket's lazy getter and so loads undici (lambda/aws/stubs/node-http.ts).
  it(`create-plant's first call over http:// loads no undici on ${label}`, async () => {
    const event = firstEvent('create-plant', token, String(Date.now() * 1000 + 3));
    const { answers, modules } = await runBundle('create-plant', [event]);
    expect(answers[0]!.statusCode).toBe(200);
    expect(modules.filter((module) => module.includes('undici'))).toEqual([]);
  });

  // The young generation the start wrapper gives (START_WRAPPER.nodeFlags) holds what a cold start
  // allocates, the import and the first call: no scavenge, where Lambda's own command line runs three.
  it(`create-plant's cold start runs no scavenge through the start wrapper (and does without it) on ${label}`, async () => {
    const scavenges = async (wrapped: boolean) => {
      const event = firstEvent(
        'create-plant',
        token,
        String(Date.now() * 1000 + (wrapped ? 1 : 2)),
      );
      const { answers, stdout } = await runBundle('create-plant', [event], {
        wrapped,
        extraFlags: ['--trace-gc'],
      });
      expect(answers[0]!.statusCode).toBe(200);
      return stdout.split('\n').filter((line) => line.includes('Scavenge')).length;
    };
    expect(await scavenges(false)).toBeGreaterThan(0);
    expect(await scavenges(true)).toBe(0);
  });
});
