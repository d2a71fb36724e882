/**
 * `npm start` against serverless-offline on the same bundles, the same engine and the same
 * requests: one `npm start` builds the bundles and runs the DynamoDB engine; serverless-offline
 * (Serverless Framework v3, installed outside the project: it is no dependency of ours) serves
 * those bundles from a generated `serverless.yml` with the same routes, authorizer, cache TTL
 * and environment, against that engine, on the Node npm start's sandboxes run on (Lambda's: it
 * runs its handlers in its own process). serverless-offline 13 invokes the authorizer on every
 * request (it has no decision cache, whatever `resultTtlInSeconds` says). Each side is warmed
 * with 20 creates and then the load itself (`warmUp`). Then the load phase's 16 keep-alive
 * connections of distinct creates, `RUNS` a side, alternating, each side first in every other
 * round; `--write-measurements` records the means of a comparison in which every request was
 * answered 200.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { COMMAND_ENVIRONMENT } from '../../definitions/settings';
import { API } from '../../definitions/api';
import { FUNCTIONS, tableEnvironment, type FunctionName } from '../../definitions/functions';
import {
  DEFAULT_SANDBOX_IDLE_SECONDS,
  localEngineTarget,
  readRecordedPorts,
  untilRecorded,
  type Credentials,
} from '../../npm-start/find';
import { freePort } from '../../npm-start/in-process';
import { spawnOnFreePorts, withoutExtraCaCerts } from '../../npm-start/spawn';
import { measuredHere } from '../measurements';
import {
  CONNECTIONS,
  distinctCreates,
  shownRates,
  unanswered,
  untilReady,
  warmUp,
  WARM_UP_SECONDS,
  WARM_UP_WINDOWS,
} from './load';
import { mean, recordFigures } from './measure';
import type { BenchContext, BenchPhase } from './phase';

/** Measured runs of each side, alternating. */
const RUNS = 2;

/** The version of `name` in the scratch install at `slsDir`. */
function readVersion(slsDir: string, name: string): string {
  const manifest = join(slsDir, 'node_modules', name, 'package.json');
  return (JSON.parse(readFileSync(manifest, 'utf8')) as { version: string }).version;
}

/** Where the scratch install of serverless and serverless-offline is. */
export const SLS_DIR_VARIABLE: keyof typeof COMMAND_ENVIRONMENT = 'PLANT_STORE_SLS_DIR';

/** What that install holds, pinned: Serverless v3 runs offline without a login; v4 needs one. */
export const SERVERLESS_PACKAGES = ['serverless@3.40.0', 'serverless-offline@13.9.0'] as const;

/** The command that makes that install in `dir`. */
export function installCommand(dir: string): string {
  return `mkdir -p ${dir} && (cd ${dir} && npm init -y && npm install ${SERVERLESS_PACKAGES.join(' ')})`;
}

/** The command that runs the phase on the install in `dir`, like for like: no authorizer cache. */
export function runCommand(dir: string): string {
  return `env -u NODE_EXTRA_CA_CERTS PLANT_STORE_AUTH_CACHE_TTL=0 ${SLS_DIR_VARIABLE}=${dir} npm run bench -- --phases offline`;
}

/** How to make that install and run the phase, as the phase says it when there is none. */
const HOW_TO_INSTALL = `${installCommand('/tmp/sls')}, then ${runCommand('/tmp/sls')}`;

/**
 * The serverless.yml (as JSON, which is YAML) for the API's routes on the built bundles; its
 * functions sign with `credentials` (npm start's operator: its engine refuses any other keys).
 */
export function serverlessConfig(
  endpoint: string,
  port: number,
  lambdaPort: number,
  credentials: Credentials = { accessKeyId: 'local', secretAccessKey: 'local' },
): object {
  const routed = new Set<FunctionName>(API.routes.map((route) => route.function));
  const functions = [API.authorizer.function, ...routed].map((name) => [
    name,
    {
      handler: `functions/${name}/index.handler`,
      memorySize: FUNCTIONS[name].memorySize,
      timeout: FUNCTIONS[name].timeoutSeconds,
      environment: {
        AWS_ACCESS_KEY_ID: credentials.accessKeyId,
        AWS_SECRET_ACCESS_KEY: credentials.secretAccessKey,
        AWS_ENDPOINT_URL_DYNAMODB: endpoint,
        AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
        ...tableEnvironment(name, (_, table) => table.localName),
      },
      events: API.routes
        .filter((route) => route.function === name)
        .map((route) => ({
          httpApi: {
            method: route.method,
            path: route.path,
            ...(route.authorized ? { authorizer: { name: 'token' } } : {}),
          },
        })),
    },
  ]);
  return {
    service: 'plant-store-offline',
    frameworkVersion: '3',
    configValidationMode: 'off',
    plugins: ['serverless-offline'],
    provider: {
      name: 'aws',
      runtime: 'nodejs20.x',
      region: 'local',
      stage: 'local',
      httpApi: {
        authorizers: {
          token: {
            type: 'request',
            functionName: API.authorizer.function,
            identitySource: API.authorizer.identitySource,
            enableSimpleResponses: true,
            resultTtlInSeconds: API.authorizer.defaultCacheTtlSeconds,
          },
        },
      },
    },
    custom: {
      'serverless-offline': {
        host: '127.0.0.1',
        httpPort: port,
        lambdaPort,
        // Its workers idle out as npm start's sandboxes do (its default is 60 s), so that a
        // long run of the other side does not leave it cold.
        terminateIdleLambdaTime: DEFAULT_SANDBOX_IDLE_SECONDS,
      },
    },
    functions: Object.fromEntries(functions),
  };
}

/** Starts `serverless offline` in `serviceDir` on the Node at `nodePath`; resolves once it answers. */
async function startOffline(slsDir: string, serviceDir: string, url: string, nodePath: string) {
  const child = spawn(
    nodePath,
    [join(slsDir, 'node_modules', 'serverless', 'bin', 'serverless.js'), 'offline', 'start'],
    {
      cwd: serviceDir,
      env: {
        ...withoutExtraCaCerts(process.env),
        SLS_TELEMETRY_DISABLED: '1',
        SLS_NOTIFICATIONS_MODE: 'off',
      },
      stdio: ['ignore', 'ignore', 'pipe'],
      detached: true,
    },
  );
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr = (stderr + String(chunk)).slice(-2000)));
  const exited = new Promise((done) => child.once('exit', done));
  const stop = async () => {
    try {
      process.kill(-child.pid!, 'SIGTERM');
    } catch {
      // already gone
    }
    await exited;
  };
  const started = performance.now();
  for (;;) {
    if (child.exitCode !== null) throw new Error(`serverless offline exited: ${stderr.trim()}`);
    const answered = await fetch(`${url}/plants`, { method: 'POST' }).then(
      () => true,
      () => false,
    );
    if (answered) return stop;
    if (performance.now() - started > 120_000) {
      await stop();
      throw new Error('serverless offline did not answer in 120 s');
    }
    await sleep(200);
  }
}

/** The comparison phase; skipped, saying how to enable it, without the scratch install. */
export const offline: BenchPhase = {
  name: 'offline',
  description: `npm start against serverless-offline on the same bundles (needs ${SLS_DIR_VARIABLE})`,
  records: 'offline',
  async run({ dir, lambdaNode, loadSeconds, print, fail, writeMeasurements }: BenchContext) {
    const slsDir = process.env[SLS_DIR_VARIABLE];
    if (!slsDir || !existsSync(join(slsDir, 'node_modules', 'serverless-offline'))) {
      print(`npm start against serverless-offline: skipped, ${SLS_DIR_VARIABLE} names no install.`);
      print(`  To run it: ${HOW_TO_INSTALL}\n`);
      return;
    }
    const dataDir = join(dir, 'offline-data');
    const npmStart = await spawnOnFreePorts(dataDir);
    let stopOffline: (() => Promise<void>) | undefined;
    try {
      await untilRecorded(dataDir, () => npmStart.child.exitCode !== null);
      const token = await untilReady(npmStart.url, npmStart.child, dataDir);
      const ports = readRecordedPorts(dataDir);
      if (!ports) throw new Error('npm start recorded no ports');
      const endpoint = `http://127.0.0.1:${ports.dbPort}`;
      const serviceDir = join(dir, 'offline-service');
      mkdirSync(serviceDir, { recursive: true });
      symlinkSync(join(dataDir, 'functions'), join(serviceDir, 'functions'));
      symlinkSync(resolve(slsDir, 'node_modules'), join(serviceDir, 'node_modules'));
      const port = await freePort();
      const { credentials } = localEngineTarget({ PLANT_STORE_DATA_DIR: dataDir });
      const config = serverlessConfig(endpoint, port, await freePort(), credentials);
      writeFileSync(join(serviceDir, 'serverless.yml'), JSON.stringify(config, null, 2));
      const offlineUrl = `http://127.0.0.1:${port}`;
      stopOffline = await startOffline(slsDir, serviceDir, offlineUrl, lambdaNode.path);

      // npm start reads the same variable (PLANT_STORE_AUTH_CACHE_TTL=0 for a cache-less comparison).
      const cacheTtl =
        process.env.PLANT_STORE_AUTH_CACHE_TTL ?? String(API.authorizer.defaultCacheTtlSeconds);
      const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
      let id = Date.now() * 1000;
      const body = () => `{"id":${id++},"name":"Offline","tag":"bench"}`;
      const sides = [
        { name: 'npm start', url: npmStart.url },
        { name: 'serverless-offline', url: offlineUrl },
      ];
      const warmed: string[] = [];
      for (const side of sides) {
        for (let i = 0; i < 20; i++) {
          const response = await fetch(`${side.url}/plants`, {
            method: 'POST',
            headers,
            body: body(),
          });
          if (response.status !== 200) {
            throw new Error(`a warm-up create on ${side.name} answered ${response.status}`);
          }
        }
        // Both start a sandbox (npm start) or a worker thread (serverless-offline) for each
        // invocation that finds none free, and each tiers its code up on its own: the same
        // warm-up for both, so that the runs measure neither.
        const warm = await warmUp(side.url, headers, body);
        if (warm.failed > 0) {
          throw new Error(`${warm.failed} requests of the warm-up of ${side.name} failed`);
        }
        warmed.push(`${side.name} ${shownRates(warm.rates)}`);
      }
      const windows = WARM_UP_WINDOWS.join(' + ');
      print(
        `npm start against serverless-offline (same bundles and engine; each warmed with 20 creates and ${windows} s of the load; ${CONNECTIONS} keep-alive connections, ${loadSeconds} s each, distinct valid creates, ${RUNS} runs each, alternating, each side first in every other round; npm start caches authorizer decisions ${cacheTtl} s, serverless-offline 13 caches none):`,
      );
      print(`  warm-up, each window: ${warmed.join('; ')}`);
      const figures = new Map<string, { rps: number[]; p99: number[] }>();
      let failed = 0;
      for (let round = 1; round <= RUNS; round++) {
        // npm start, serverless-offline, then serverless-offline, npm start…: a drift of the
        // machine or of the engine's growing table falls on both sides alike.
        for (const side of round % 2 === 1 ? sides : [...sides].reverse()) {
          const result = await distinctCreates(side.url, headers, body, { seconds: loadSeconds });
          const rps = result['2xx'] / result.duration;
          const errors = unanswered(result);
          failed += errors;
          const figure = figures.get(side.name) ?? { rps: [], p99: [] };
          figure.rps.push(rps);
          figure.p99.push(result.latency.p99);
          figures.set(side.name, figure);
          print(
            `  ${side.name.padEnd(18)} run ${round}: ${rps.toFixed(0)} req/s answered 200 (${result.requests.total} requests), latency p50 ${result.latency.p50} ms, p99 ${result.latency.p99} ms, max ${result.latency.max} ms; errors ${errors} (${result.non2xx} non-2xx, ${result.timeouts} timeouts, ${result.errors} connection errors)`,
          );
        }
      }
      const side = (name: string) => {
        const { rps, p99 } = figures.get(name)!;
        return { rps: Number(mean(rps).toFixed(1)), p99Ms: Number(mean(p99).toFixed(1)) };
      };
      const [ours, theirs] = [side('npm start'), side('serverless-offline')];
      print(
        `  npm start / serverless-offline (means of the ${RUNS} runs): ${(ours.rps / theirs.rps).toFixed(2)}× req/s, ${(ours.p99Ms / theirs.p99Ms).toFixed(2)}× p99\n`,
      );
      recordFigures(
        { writeMeasurements, print, fail },
        'offline',
        () => ({
          // npm start runs on the Node its functions do (its script: NPM_START_NODE).
          ...measuredHere('npm run bench -- --phases offline', lambdaNode.path),
          serverlessOffline: readVersion(slsDir, 'serverless-offline'),
          connections: CONNECTIONS,
          seconds: loadSeconds,
          runs: RUNS,
          warmUpSeconds: WARM_UP_SECONDS,
          cacheTtlSeconds: Number(cacheTtl),
          npmStart: ours,
          offline: theirs,
        }),
        failed,
      );
    } finally {
      await stopOffline?.();
      await npmStart.stop();
    }
  },
};
