/**
 * The banner's dev-token lines never hold the token, and the printed curl command reads it from
 * the file (or the variable) whatever the path holds: the command is run by `sh` with `curl`
 * replaced by a printer of its arguments.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateToken } from '../../../lambda/tokens/token';
import { devTokenBanner, devTokenFile } from '../../../lib/local/dev/dev-token';

const { token } = generateToken();
const dirs: string[] = [];
afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

/** The arguments the printed curl command would get, one per line. */
function curlArguments(lines: string[], env: Record<string, string> = {}): string[] {
  const curl = /try: +curl (.*)$/.exec(lines[1]!)![1]!;
  const printed = execFileSync('sh', ['-c', `printf '%s\\n' ${curl}`], {
    env: { ...process.env, ...env },
    encoding: 'utf8',
  });
  return printed.trimEnd().split('\n');
}

it.each([
  ['a plain path', 'plant-store-'],
  ['a space, a quote and a dollar', "plant store it's $HOME `x` "],
])('from the file, under %s: its path, never the token', (_, prefix) => {
  const dataDir = mkdtempSync(join(tmpdir(), prefix));
  dirs.push(dataDir);
  writeFileSync(devTokenFile(dataDir), `${token}\n`);
  const lines = devTokenBanner({ dataDir }, 'http://127.0.0.1:1234');
  expect(lines.join('\n')).not.toContain(token);
  expect(lines[0]).toBe(`  dev token: in ${join(dataDir, 'dev-token')} (0600)`);
  expect(curlArguments(lines)).toContain(`Authorization: Bearer ${token}`);
});

it('from PLANT_STORE_DEV_TOKEN: says so, never the token', () => {
  const lines = devTokenBanner({ dataDir: '/nowhere', devToken: token }, 'http://127.0.0.1:1234');
  expect(lines.join('\n')).not.toContain(token);
  expect(lines[0]).toBe(
    '  dev token: from PLANT_STORE_DEV_TOKEN (not printed), kept in /nowhere/dev-token (0600) for the next start',
  );
  expect(curlArguments(lines, { PLANT_STORE_DEV_TOKEN: token })).toContain(
    `Authorization: Bearer ${token}`,
  );
});
