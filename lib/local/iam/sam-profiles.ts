/**
 * For `sam local invoke` against `npm run db`: a shared credentials file with one profile per
 * function, each a session of that function's role issued for this run, so that a function SAM
 * runs is judged by its own role's policy as under `npm start` (`AWS_SHARED_CREDENTIALS_FILE=…
 * sam local invoke --profile deliver …`). Rewritten on each start (the sessions of an earlier run
 * are refused), private like the rest of the data directory.
 */
import { rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { FUNCTION_NAMES } from '../../definitions/functions';
import type { LocalAccount } from './account';

/** Where the profiles are kept. */
export function samProfilesFile(dataDir: string): string {
  return join(dataDir, 'sam-credentials');
}

/** Issues one session per function and writes them as profiles named after the functions. */
export async function writeSamProfiles(account: LocalAccount, dataDir: string): Promise<string> {
  const file = samProfilesFile(dataDir);
  const profiles = FUNCTION_NAMES.map((name) => {
    const keys = account.sandboxCredentials(name);
    return [
      `[${name}]`,
      `aws_access_key_id = ${keys.AWS_ACCESS_KEY_ID}`,
      `aws_secret_access_key = ${keys.AWS_SECRET_ACCESS_KEY}`,
      `aws_session_token = ${keys.AWS_SESSION_TOKEN}`,
      '',
    ].join('\n');
  });
  const temporary = `${file}.${process.pid}.tmp`;
  await writeFile(temporary, profiles.join('\n'), { mode: 0o600 });
  await rename(temporary, file);
  return file;
}
