/**
 * `npm run token -- create|list|revoke`: manages bearer tokens in the local engine or, with
 * `--aws`, in a deployed tokens table. Prints tokens only on `create`, and only on stdout.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { parseArgs } from 'node:util';
import { UsageError, commandError, failureExitCode } from '../cli-args';
import { makeDocumentClient } from '../../lambda/shared/dynamodb';
import { ALL_SCOPES, DEFAULT_SCOPES, generateToken, tokenItem } from '../../lambda/shared/tokens';
import { TOKENS_TABLE, TokensTable } from '../../lambda/shared/tokens-table';
import { localCliClientConfig } from '../local/engine';
import { DEFAULT_DB_PORT, localEngineEndpoint } from '../local/settings';

/** The longest `--expires-in`: ten years. */
const MAX_DAYS = 3650;

export const TOKEN_HELP = `Usage: npm run token -- <command> [options]

Commands:
  create --name <label> [--scopes <s,...>] [--expires-in <N>m|h|d]
                       Make a token. Prints the token alone on stdout; its id, scopes
                       and expiry on stderr. Scopes, comma-separated: ${ALL_SCOPES.join(', ')};
                       default ${DEFAULT_SCOPES.join(',')} (deleting must be asked for).
                       --expires-in: minutes, hours or days (90m, 12h, 30d), at most ${MAX_DAYS}d.
  list                 A header row, then one line per token: tokenId, name, scopes,
                       created, expires (tab-separated).
  revoke <tokenId>     Delete a token. It stops working once the gateway's cache expires.
                       An unknown tokenId is exit code 1.

Exit codes: 0 done, 1 failed or not found, 2 a usage mistake.

Target (default: the local engine at http://127.0.0.1:\${PLANT_STORE_DB_PORT:-${DEFAULT_DB_PORT}}):
  --aws --table <name> [--region <r>]
                       The deployed tokens table (stack output TokensTableName), with the
                       default AWS credential chain.
  --help               This text.
`;

/** Where the CLI writes. */
export interface CliIo {
  readonly out: (line: string) => void;
  readonly err: (line: string) => void;
  readonly env: NodeJS.ProcessEnv;
}

/** Runs the CLI and returns its exit code; never throws. */
export async function runTokenCli(argv: readonly string[], io: CliIo): Promise<number> {
  let target: Target | undefined;
  try {
    // parseArgs reads `--expires-in -5d` as a missing value; say what is wrong with the value.
    const expiresAt = argv.indexOf('--expires-in');
    if (expiresAt >= 0 && argv[expiresAt + 1]?.startsWith('-')) parseExpiry(argv[expiresAt + 1]);
    const { values, positionals } = parseArgs({
      args: [...argv],
      allowPositionals: true,
      strict: true,
      options: {
        name: { type: 'string' },
        scopes: { type: 'string' },
        'expires-in': { type: 'string' },
        aws: { type: 'boolean' },
        table: { type: 'string' },
        region: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    });
    const [command, ...rest] = positionals;
    if (values.help || command === 'help') {
      io.out(TOKEN_HELP);
      return 0;
    }
    target = resolveTarget(values, io.env);
    if (command === 'create') {
      noArguments(rest);
      if (values.name === undefined || values.name.trim() === '') {
        throw new UsageError('create needs --name <label>');
      }
      await create(
        target,
        values.name,
        parseScopes(values.scopes),
        parseExpiry(values['expires-in']),
        io,
      );
    } else if (command === 'list') {
      noArguments(rest);
      await list(target, io);
    } else if (command === 'revoke') {
      if (rest.length !== 1) throw new UsageError('revoke needs exactly one tokenId');
      await revoke(target, rest[0]!, io);
    } else {
      throw commandError(command, ['create', 'list', 'revoke']);
    }
    return 0;
  } catch (caught) {
    return failureExitCode('token', caught, (error) => describe(error, target), io.err);
  } finally {
    target?.client.destroy();
  }
}

interface Target {
  readonly client: DynamoDBDocumentClient;
  readonly table: TokensTable;
  readonly where: string;
  readonly local: boolean;
}

function resolveTarget(
  values: { aws?: boolean; table?: string; region?: string },
  env: NodeJS.ProcessEnv,
): Target {
  if (values.aws) {
    if (!values.table) throw new UsageError('--aws needs --table <TokensTableName>');
    const client = makeDocumentClient(values.region ? { region: values.region } : {});
    return {
      client,
      table: new TokensTable(client, values.table),
      where: `table ${values.table} in AWS`,
      local: false,
    };
  }
  if (values.table || values.region) throw new UsageError('--table and --region go with --aws');
  const endpoint = localEngineEndpoint(env);
  const client = makeDocumentClient(localCliClientConfig(endpoint));
  return {
    client,
    table: new TokensTable(client, TOKENS_TABLE.localName),
    where: `the local engine at ${endpoint}`,
    local: true,
  };
}

function noArguments(rest: readonly string[]): void {
  if (rest.length > 0) throw new UsageError(`unexpected argument ${rest[0]}`);
}

function parseScopes(scopes: string | undefined): string[] {
  if (scopes === undefined) return [...DEFAULT_SCOPES];
  const list = scopes.split(/[\s,]+/).filter(Boolean);
  const unknown = list.filter((scope) => !ALL_SCOPES.includes(scope));
  if (list.length === 0 || unknown.length > 0) {
    throw new UsageError(
      `unknown scope ${unknown[0] ?? '(none)'}; known: ${ALL_SCOPES.join(', ')}`,
    );
  }
  return [...new Set(list)];
}

const UNIT_SECONDS = { m: 60, h: 3_600, d: 86_400 } as const;

/** `--expires-in 30d` (or `90m`, `12h`) → epoch seconds that long from now. */
function parseExpiry(expiresIn: string | undefined, now = Date.now()): number | undefined {
  if (expiresIn === undefined) return undefined;
  const [, count, unit] = /^([1-9]\d{0,7})([mhd])$/.exec(expiresIn) ?? [];
  const seconds = Number(count) * UNIT_SECONDS[unit as keyof typeof UNIT_SECONDS];
  if (!count || seconds > MAX_DAYS * 86_400) {
    throw new UsageError(
      `--expires-in takes minutes, hours or days like 90m, 12h or 30d, at most ${MAX_DAYS}d; not ${expiresIn}`,
    );
  }
  return Math.floor(now / 1000) + seconds;
}

async function create(
  target: Target,
  name: string,
  scopes: string[],
  expiresAt: number | undefined,
  io: CliIo,
): Promise<void> {
  const { token, tokenId } = generateToken();
  await target.table.put(tokenItem(token, tokenId, { name, scopes, expiresAt }), {
    onlyIfNew: true,
  });
  io.out(token);
  io.err(`tokenId ${tokenId}  scopes ${scopes.join(' ')}  expires ${formatExpiry(expiresAt)}`);
}

async function list(target: Target, io: CliIo): Promise<void> {
  const items = await target.table.scan();
  items.sort((a, b) => String(a.createdAt).localeCompare(String(b.createdAt)));
  if (items.length > 0) io.out(['tokenId', 'name', 'scopes', 'created', 'expires'].join('\t'));
  for (const item of items) {
    const expires = item.expiresAt === undefined ? undefined : Number(String(item.expiresAt));
    const scopes = Array.isArray(item.scopes) ? item.scopes.join(',') : '';
    io.out(
      [
        item.tokenId,
        JSON.stringify(String(item.name)),
        scopes,
        item.createdAt,
        formatExpiry(expires),
      ].join('\t'),
    );
  }
  if (items.length === 0) io.err(`no tokens in ${target.where}`);
}

async function revoke(target: Target, tokenId: string, io: CliIo): Promise<void> {
  const matches = (await target.table.scan()).filter((item) => item.tokenId === tokenId);
  // Not a usage mistake: the id is well formed, the token is not there (exit code 1).
  if (matches.length === 0) throw new Error(`no token with id ${tokenId} in ${target.where}`);
  for (const item of matches) await target.table.delete(item.hash);
  io.err(`revoked ${tokenId}; it stops working within the gateway's authorizer cache time`);
}

function formatExpiry(expiresAt: number | undefined): string {
  return expiresAt === undefined ? 'never' : new Date(expiresAt * 1000).toISOString();
}

/** One line that says what went wrong, without a stack. */
function describe(error: unknown, target: Target | undefined): string {
  const { name, code, message } = (error ?? {}) as {
    name?: string;
    code?: string;
    message?: string;
  };
  if (name === 'ResourceNotFoundException') {
    return `the tokens table does not exist in ${target?.where ?? 'the target'}${target?.local ? ' (start the engine with npm run db or npm start; they create it)' : ''}`;
  }
  if (code === 'ECONNREFUSED' || name === 'TimeoutError') {
    return `cannot reach ${target?.where ?? 'the engine'}${target?.local ? '; start it with npm run db (or npm start)' : ''}`;
  }
  if (name === 'CredentialsProviderError') return `no AWS credentials: ${message}`;
  return message || String(error);
}
