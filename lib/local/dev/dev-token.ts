/**
 * The local dev token: made valid with every scope at start (one `tok_dev` item, so a replaced
 * token stops working), kept in the data directory, and shown by where it is, never printed.
 */
import { chmod, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { makeDocumentClient } from '../../../lambda/aws/dynamodb';
import { ALL_SCOPES, TOKEN_FORMAT, generateToken, tokenItem } from '../../../lambda/tokens/token';
import { TOKENS_TABLE, TokensTable, type StoredTokenItem } from '../../../lambda/tokens/table';
import { PRIVATE_FILE_MODE, writePrivateFile } from '../process/private-dir';

/** Where the dev token comes from: `PLANT_STORE_DEV_TOKEN`, else a file in the data directory. */
export interface DevTokenOptions {
  readonly dataDir: string;
  readonly devToken?: string;
}

export const DEV_TOKEN_ID = 'tok_dev';

/**
 * Makes the dev token valid with every scope: `PLANT_STORE_DEV_TOKEN` if set, else the one kept
 * in `devTokenFile` (mode 0600), created on first start; the file is left holding the token
 * made valid. It replaces any other `tok_dev` item, so a replaced dev token stops working; an
 * unchanged one keeps its item and `createdAt`.
 */
export async function ensureDevToken(
  options: DevTokenOptions,
  clientConfig: Parameters<typeof makeDocumentClient>[0],
): Promise<string> {
  let token = options.devToken;
  if (token !== undefined && !TOKEN_FORMAT.test(token)) {
    throw new Error('PLANT_STORE_DEV_TOKEN must be pst_ followed by 43 base64url characters');
  }
  const file = devTokenFile(options.dataDir);
  const kept = (await readFile(file, 'utf8').catch(() => '')).trim();
  if (token === undefined) token = TOKEN_FORMAT.test(kept) ? kept : generateToken().token;
  // The file always holds the token the runtime accepts: a token given by the variable (the
  // sam local events' one) stays the dev token at the next start without it.
  // A kept file made by an earlier version may be more open: it is made private too.
  if (token !== kept) await writePrivateFile(file, `${token}\n`);
  else await chmod(file, PRIVATE_FILE_MODE);
  const wanted = tokenItem(token, DEV_TOKEN_ID, { name: 'dev', scopes: ALL_SCOPES });
  const client = makeDocumentClient(clientConfig);
  try {
    const tokens = new TokensTable(client, TOKENS_TABLE.localName);
    let current: StoredTokenItem | undefined;
    // The local table holds a handful of tokens: a scan is cheaper than an index.
    for (const item of await tokens.scan()) {
      if (item.tokenId !== DEV_TOKEN_ID) continue;
      if (item.hash === wanted.hash) current = item;
      else await tokens.delete(item.hash);
    }
    const unchanged =
      current?.name === wanted.name &&
      current.expiresAt === undefined &&
      typeof current.createdAt === 'string' &&
      sameScopes(current.scopes, wanted.scopes) &&
      String(current.scopesRevision) === String(wanted.scopesRevision);
    if (!unchanged) {
      const createdAt =
        typeof current?.createdAt === 'string' ? current.createdAt : wanted.createdAt;
      await tokens.put({ ...wanted, createdAt });
    }
  } finally {
    client.destroy();
  }
  return token;
}

/** True when a stored scopes attribute (list or set) holds exactly `scopes`. */
function sameScopes(stored: unknown, scopes: readonly string[]): boolean {
  const list = stored instanceof Set || Array.isArray(stored) ? [...stored] : [];
  return list.length === scopes.length && scopes.every((scope) => list.includes(scope));
}

/** Where the dev token is kept (mode 0600), the one `PLANT_STORE_DEV_TOKEN` gave included. */
export function devTokenFile(dataDir: string): string {
  return join(dataDir, 'dev-token');
}

/**
 * The banner's dev-token lines: where the token is and a curl command that reads it, never the
 * token itself, which would stay in scrollback and CI logs.
 */
export function devTokenBanner(options: DevTokenOptions, url: string): string[] {
  const file = devTokenFile(options.dataDir);
  const fromFile = options.devToken === undefined;
  // Single-quoted for the shell, whatever the path holds.
  const bearer = fromFile ? `$(cat '${file.replaceAll("'", `'\\''`)}')` : '$PLANT_STORE_DEV_TOKEN';
  return [
    fromFile
      ? `  dev token: in ${file} (0600)`
      : `  dev token: from PLANT_STORE_DEV_TOKEN (not printed), kept in ${file} (0600) for the next start`,
    `  try:       curl -i -X POST ${url}/plants -H "Authorization: Bearer ${bearer}" -H 'Content-Type: application/json' -d '{"id":9007199254740993,"name":"Monstera","tag":"aroid"}'`,
  ];
}
