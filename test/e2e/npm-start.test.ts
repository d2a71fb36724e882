/**
 * `npm start` itself, as a user runs it: the documented environment variables, the printed URL,
 * dev token and curl command, and a clean stop on SIGTERM.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateToken } from '../../lambda/shared/tokens';
import { freePort } from '../../lib/local/free-port';

const ROOT = join(__dirname, '../..');

/** Starts `npm start` and resolves with its output once it says it is listening. */
async function npmStart(env: Record<string, string>, args: string[] = []) {
  const child = spawn('npm', ['start', '--silent', '--', ...args], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  await new Promise<void>((resolve, reject) => {
    const check = setInterval(() => {
      if (output.includes('dev token:') && output.includes('try:')) {
        clearInterval(check);
        resolve();
      }
    }, 20);
    child.once('exit', (code) => {
      clearInterval(check);
      reject(new Error(`npm start exited ${code}: ${output}`));
    });
  });
  return { child, output: () => output };
}

function stop(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => {
    child.once('exit', (code) => resolve(code));
    child.kill('SIGTERM');
  });
}

it('serves on PORT with the given dev token, prints a curl that works, and stops cleanly', async () => {
  const [port, dbPort] = [await freePort(), await freePort()];
  const { token } = generateToken();
  const { child, output } = await npmStart(
    {
      PORT: String(port),
      PLANT_STORE_DB_PORT: String(dbPort),
      PLANT_STORE_DATA_DIR: mkdtempSync(join(tmpdir(), 'plant-store-start-')),
      PLANT_STORE_DEV_TOKEN: token,
    },
    ['--memory'],
  );
  expect(output()).toContain(`listening on http://127.0.0.1:${port}`);
  expect(output()).toContain(`dev token: ${token}`);
  const curl = /try: +(curl .*)$/m.exec(output())![1]!;
  const answer = await new Promise<string>((resolve, reject) =>
    execFile('sh', ['-c', curl], (error, stdout) => (error ? reject(error) : resolve(stdout))),
  );
  expect(answer).toMatch(/^HTTP\/1\.1 200 OK/);
  expect(answer).toContain('{"name":"Monstera","tag":"aroid"}');
  expect(await stop(child)).toBe(0);
  expect(output()).toMatch(/POST \/plants 200 [\d.]+ms \S+/);
  expect(output()).toMatch(/^\[create-plant\] INFO created id=1 token=tok_dev \(req \S+\)$/m);
});

it('creates a dev token on first start, keeps it 0600 and reuses it', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'plant-store-start-'));
  const env = {
    PORT: String(await freePort()),
    PLANT_STORE_DB_PORT: String(await freePort()),
    PLANT_STORE_DATA_DIR: dataDir,
  };
  const first = await npmStart(env);
  expect(await stop(first.child)).toBe(0);
  const token = readFileSync(join(dataDir, 'dev-token'), 'utf8').trim();
  expect(statSync(join(dataDir, 'dev-token')).mode & 0o777).toBe(0o600);
  expect(first.output()).toContain(`dev token: ${token}`);
  const second = await npmStart(env);
  expect(second.output()).toContain(`dev token: ${token}`);
  const response = await fetch(`http://127.0.0.1:${env.PORT}/plants`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: '{"id":1,"name":"a"}',
  });
  expect(response.status).toBe(200);
  expect(await stop(second.child)).toBe(0);
});

it('refuses a malformed setting with one clear line', async () => {
  const result = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
    const child = spawn('npm', ['start', '--silent'], {
      cwd: ROOT,
      env: { ...process.env, PORT: 'eighty' },
    });
    let stderr = '';
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.once('exit', (code) => resolve({ code, stderr }));
  });
  expect(result.code).not.toBe(0);
  expect(result.stderr).toContain(
    'start failed: PORT must be an integer from 0 to 65535, not eighty',
  );
});
