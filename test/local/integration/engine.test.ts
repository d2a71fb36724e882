/**
 * The local engine refuses what a web page can send — preflights, requests with `Origin`,
 * requests whose `Host` is another name (DNS rebinding) — even when signed by the SDK, and
 * keeps serving the SDK clients; in-process and through `npm run db`.
 */
import { DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import type { ChildProcess } from 'node:child_process';
import { spawn } from 'node:child_process';
import { request } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { binArgs } from '../../../lib/cli/bin-entry';
import { startEngine, type Engine } from '../../../lib/local/dynamodb/engine';
import type { Credentials } from '../../../lib/local/iam/identities';
import { readOperatorCredentials } from '../../../lib/local/iam/identities';
import { freePort } from '../../../lib/local/process/free-port';
import { signedHeaders } from '../../support/signed-headers';

let engine: Engine;
beforeAll(async () => {
  engine = await startEngine();
});
afterAll(async () => {
  await engine?.close();
});

/** An SDK client whose requests carry `headers`, set before signing (so they are signed too). */
function clientWith(endpointOf: () => string, headers: Record<string, string> = {}) {
  const client = new DynamoDBClient({ ...engine.clientConfig, endpoint: endpointOf() });
  client.middlewareStack.add(
    (next) => async (args) => {
      const req = args.request as { headers: Record<string, string> };
      Object.assign(req.headers, headers);
      return next(args);
    },
    { step: 'build', name: 'setHeaders' },
  );
  return client;
}

/** A raw HTTP request to the engine: status, headers and body, with exactly these headers. */
function raw(port: number, method: string, headers: Record<string, string>, body = '') {
  return new Promise<{ status: number; headers: Record<string, unknown>; body: string }>(
    (resolve, reject) => {
      const req = request({ host: '127.0.0.1', port, method, path: '/', headers }, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: text }));
      });
      req.on('error', reject);
      req.end(body);
    },
  );
}

const accessControl = (headers: Record<string, unknown>) =>
  Object.keys(headers).filter((name) => name.startsWith('access-control-'));

/** A ListTables signed by `credentials` (the engine's operator by default) with `headers`. */
const listTables = async (
  port: number,
  headers: Record<string, string>,
  credentials: Credentials = engine.clientConfig.credentials,
) =>
  raw(
    port,
    'POST',
    await signedHeaders(
      `http://127.0.0.1:${port}`,
      'dynamodb',
      {
        'content-type': 'application/x-amz-json-1.0',
        'x-amz-target': 'DynamoDB_20120810.ListTables',
        ...headers,
      },
      '{}',
      credentials,
    ),
    '{}',
  );

describe('the SDK keeps working', () => {
  it.each([
    ['Host 127.0.0.1:<port>', undefined],
    ['Host localhost:<port>', 'localhost:PORT'],
  ])('%s', async (_, hostPattern) => {
    const host = hostPattern?.replace('PORT', String(engine.port));
    const client = clientWith(() => engine.endpoint, host ? { host } : {});
    const { TableNames } = await client.send(new ListTablesCommand({}));
    expect(TableNames).toEqual(expect.arrayContaining(['plants', 'tokens']));
    client.destroy();
  });
});

describe('signed SDK requests a web page could cause are refused', () => {
  it.each<[string, Record<string, string>]>([
    ['a foreign Host (DNS rebinding)', { host: 'attacker.example:PORT' }],
    ['Host with another port', { host: '127.0.0.1:1' }],
    ['Host without a port', { host: '127.0.0.1' }],
    ['an Origin', { origin: 'https://attacker.example' }],
    ['Origin null (sandboxed frame)', { origin: 'null' }],
    ['Sec-Fetch-Mode (any browser fetch)', { 'sec-fetch-mode': 'no-cors' }],
  ])('%s', async (_, headers) => {
    const client = clientWith(
      () => engine.endpoint,
      Object.fromEntries(
        Object.entries(headers).map(([k, v]) => [k, v.replace('PORT', String(engine.port))]),
      ),
    );
    await expect(client.send(new ListTablesCommand({}))).rejects.toMatchObject({
      name: 'AccessDeniedException',
      $metadata: { httpStatusCode: 403 },
    });
    client.destroy();
  });
});

describe('raw HTTP as a browser would send it', () => {
  it('a CORS preflight gets 403 and no Access-Control-* header', async () => {
    const answer = await raw(engine.port, 'OPTIONS', {
      host: `127.0.0.1:${engine.port}`,
      origin: 'https://attacker.example',
      'access-control-request-method': 'POST',
      'access-control-request-headers': 'content-type,x-amz-target',
    });
    expect(answer.status).toBe(403);
    expect(accessControl(answer.headers)).toEqual([]);
  });

  it('a cross-origin POST gets 403 and no Access-Control-* header', async () => {
    const answer = await listTables(engine.port, {
      host: `127.0.0.1:${engine.port}`,
      origin: 'https://attacker.example',
    });
    expect(answer.status).toBe(403);
    expect(JSON.parse(answer.body)).toMatchObject({ __type: expect.stringMatching(/#Access/) });
    expect(accessControl(answer.headers)).toEqual([]);
  });

  it('the same POST without Origin and with the engine as Host is served', async () => {
    const answer = await listTables(engine.port, { host: `127.0.0.1:${engine.port}` });
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body)).toMatchObject({
      TableNames: ['plants', 'subscriptions', 'tokens'],
    });
  });
});

it('answers another host name only when told to (sam local: host.docker.internal)', async () => {
  const docker = await startEngine({ hostNames: ['127.0.0.1', 'host.docker.internal'] });
  try {
    const host = `host.docker.internal:${docker.port}`;
    const keys = docker.clientConfig.credentials;
    expect((await listTables(docker.port, { host }, keys)).status).toBe(200);
    expect((await listTables(docker.port, { host: `localhost:${docker.port}` }, keys)).status).toBe(
      403,
    );
    expect(
      (await listTables(docker.port, { host, origin: 'https://a.example' }, keys)).status,
    ).toBe(403);
    expect(
      (await listTables(engine.port, { host: `host.docker.internal:${engine.port}` })).status,
    ).toBe(403);
  } finally {
    await docker.close();
  }
});

describe('npm run db', () => {
  let child: ChildProcess;
  let port: number;
  let operator: Credentials;
  const dataDir = mkdtempSync(join(tmpdir(), 'plant-store-db-'));
  beforeAll(async () => {
    port = await freePort();
    child = spawn(process.execPath, binArgs('db', ['--memory']), {
      env: { ...process.env, PLANT_STORE_DB_PORT: String(port), PLANT_STORE_DATA_DIR: dataDir },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    await new Promise<void>((resolve, reject) => {
      child.stdout!.on('data', (chunk: Buffer) => {
        if (chunk.toString().includes('engine on')) resolve();
      });
      child.once('exit', (code) => reject(new Error(`npm run db exited with ${code}`)));
    });
    // The keys it keeps for the CLIs, even with --memory.
    operator = (await readOperatorCredentials(dataDir))!;
  }, 300_000);
  afterAll(async () => {
    if (child.exitCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('refuses a preflight and a foreign Host, serves the engine address', async () => {
    const preflight = await raw(port, 'OPTIONS', {
      host: `127.0.0.1:${port}`,
      origin: 'https://attacker.example',
      'access-control-request-method': 'POST',
    });
    expect([preflight.status, accessControl(preflight.headers)]).toEqual([403, []]);
    const rebound = await listTables(port, { host: `attacker.example:${port}` }, operator);
    expect(rebound.status).toBe(403);
    const served = await listTables(port, { host: `localhost:${port}` }, operator);
    expect(served.status).toBe(200);
    // A stranger's keys: DynamoDB's own refusal.
    const stranger = { accessKeyId: 'AKIASTRANGER', secretAccessKey: 'x' };
    const refused = await listTables(port, { host: `localhost:${port}` }, stranger);
    expect([refused.status, JSON.parse(refused.body).__type]).toEqual([
      400,
      'com.amazon.coral.service#UnrecognizedClientException',
    ]);
    // AWS's words, then where this run's keys are.
    expect(JSON.parse(refused.body).message).toBe(
      `The security token included in the request is invalid. (Locally, sign with the operator's keys: AWS_SHARED_CREDENTIALS_FILE=${join(dataDir, 'aws-credentials')})`,
    );
  });

  it('keeps a profile the SDK reads: a Scan of the plants table through it', async () => {
    // The recipe of the local development guide, in a process of its own: the SDK's default
    // credential chain, no keys in the environment.
    const env = Object.fromEntries(
      Object.entries(process.env).filter(([name]) => !/^AWS_/.test(name)),
    );
    const script = `
      const { DynamoDBClient, ScanCommand } = require('@aws-sdk/client-dynamodb');
      new DynamoDBClient({ endpoint: process.argv[1] })
        .send(new ScanCommand({ TableName: 'plants' }))
        .then((out) => console.log(out.Count), (error) => { console.error(error.name); process.exit(1); });`;
    const scanned = await new Promise<{ code: number | null; out: string }>((resolve) => {
      const scan = spawn(process.execPath, ['-e', script, `http://127.0.0.1:${port}`], {
        env: {
          ...env,
          AWS_SHARED_CREDENTIALS_FILE: join(dataDir, 'aws-credentials'),
          AWS_REGION: 'us-east-1',
        },
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      let out = '';
      scan.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
      scan.once('exit', (code) => resolve({ code, out }));
    });
    expect(scanned).toEqual({ code: 0, out: '0\n' });
  });
});
