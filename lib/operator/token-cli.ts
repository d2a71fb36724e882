/**
 * `npm run token -- create|list|show|revoke`: manages bearer tokens in the local engine or, with
 * `--aws`, in a deployed tokens table. Prints tokens only on `create`, and only on stdout.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { UsageError, commandError, fieldText, parseCommandLine } from '../cli/args';
import { failureExitCode, type CliIo } from '../cli/run';
import { makeDocumentClient } from '../../lambda/aws/dynamodb';
import {
  ALL_SCOPES,
  DEFAULT_SCOPES,
  TOKEN_PREFIX,
  generateToken,
  tokenItem,
} from '../../lambda/tokens/token';
import { TOKENS_TABLE, TokensTable, type StoredTokenItem } from '../../lambda/tokens/table';
import {
  CHANGE_NEED,
  SCOPES_REVISION,
  UNSTORED_SCOPES_REVISION,
} from '../../lambda/tokens/principal';
import { findingNpmStart, localCliClientConfig, localEngineTarget } from '../npm-start/find';

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
                       created, expires, revision (tab-separated; an expired token's
                       expiry ends with "(expired)").
  show <tokenId|name>  One token's id, name, scopes, creation, expiry and revision, one
                       per line.
  revoke <tokenId>     Delete a token. It stops working once the gateway's cache expires.
  revoke --name <name> The same, naming the token by its name.

A token is named by its tokenId (tok_..., see list) or its name, never by the secret
itself. An unknown token is exit code 1; a name that several tokens share is too (use
the tokenId).

A token's revision says what its scopes mean, as when it was made: ${UNSTORED_SCOPES_REVISION} (made before
${CHANGE_NEED.release}), plants:write creates plants; ${SCOPES_REVISION}, it also changes them (PUT, PATCH). A
token of revision ${UNSTORED_SCOPES_REVISION} cannot change plants: make a new one.

Exit codes: 0 done, 1 failed or not found, 2 a usage mistake.

Target (default: ${findingNpmStart('engine', '  ')}):
  --aws --table <name> [--region <r>]
                       The deployed tokens table (stack output TokensTableName), with the
                       default AWS credential chain.
  --help               This text.
`;

const OPTIONS = {
  name: { type: 'string' },
  scopes: { type: 'string' },
  'expires-in': { type: 'string' },
  aws: { type: 'boolean' },
  table: { type: 'string' },
  region: { type: 'string' },
} as const;

/** Runs the CLI and returns its exit code; never throws. */
export async function runTokenCli(argv: readonly string[], io: CliIo): Promise<number> {
  let target: Target | undefined;
  try {
    // parseArgs reads `--expires-in -5d` as a missing value; say what is wrong with the value.
    const expiresAt = argv.indexOf('--expires-in');
    if (expiresAt >= 0 && argv[expiresAt + 1]?.startsWith('-')) parseExpiry(argv[expiresAt + 1]);
    const { values, positionals, help } = parseCommandLine(argv, OPTIONS, true);
    const [command, ...rest] = positionals;
    if (help || command === 'help') {
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
    } else if (command === 'show') {
      if (rest.length !== 1) throw new UsageError('show needs exactly one tokenId or name');
      show(await findToken(target, command, rest[0]!), io);
    } else if (command === 'revoke') {
      const byName = values.name !== undefined;
      if (rest.length !== (byName ? 0 : 1)) {
        throw new UsageError('revoke needs exactly one tokenId, or --name <name> alone');
      }
      const wanted = byName ? values.name! : rest[0]!;
      await revoke(target, await findToken(target, command, wanted, byName), io);
    } else {
      throw commandError(command, ['create', 'list', 'show', 'revoke']);
    }
    return 0;
  } catch (caught) {
    return failureExitCode('token', caught, io.err, (error) => describe(error, target));
  } finally {
    target?.client.destroy();
  }
}

interface Target {
  readonly client: DynamoDBDocumentClient;
  readonly table: TokensTable;
  readonly where: string;
  readonly local: boolean;
  /** Locally: what to say when the engine cannot be reached. */
  readonly unreachable?: string;
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
  const engine = localEngineTarget(env);
  const client = makeDocumentClient(localCliClientConfig(engine.endpoint, engine.credentials));
  return {
    client,
    table: new TokensTable(client, TOKENS_TABLE.localName),
    where: engine.where,
    local: true,
    unreachable: engine.unreachable,
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

/** A stored token as the CLI shows it: never its hash, let alone the token. */
interface ShownToken {
  readonly hash: string;
  readonly tokenId: string;
  /** As printed. */
  readonly name: string;
  /** As stored, which is what `--name` matches. */
  readonly storedName: string;
  readonly scopes: string;
  readonly created: string;
  readonly expires: string;
  /** What its scopes mean (`SCOPES_REVISION`; none stored: 1). */
  readonly revision: string;
}

/** What `list` prints of a token, a column each, and `show`, a line each, in this order. */
const SHOWN_FIELDS = ['tokenId', 'name', 'scopes', 'created', 'expires', 'revision'] as const;

/**
 * One stored item for display. A name is printed as `fieldText` writes any field; an expiry
 * already past says so, since the table's TTL removes an item only days later.
 */
function shown(item: StoredTokenItem, now = Date.now()): ShownToken {
  const expiresAt = item.expiresAt === undefined ? undefined : Number(String(item.expiresAt));
  const expired = expiresAt !== undefined && expiresAt * 1000 <= now;
  return {
    hash: item.hash,
    tokenId: String(item.tokenId),
    storedName: String(item.name),
    name: fieldText(String(item.name)),
    scopes: Array.isArray(item.scopes) ? item.scopes.join(',') : '',
    created: String(item.createdAt),
    expires: `${formatExpiry(expiresAt)}${expired ? ' (expired)' : ''}`,
    revision: String(item.scopesRevision ?? UNSTORED_SCOPES_REVISION),
  };
}

async function list(target: Target, io: CliIo): Promise<void> {
  const items = (await target.table.scan()).map((item) => shown(item));
  items.sort((a, b) => a.created.localeCompare(b.created));
  if (items.length > 0) io.out(SHOWN_FIELDS.join('\t'));
  for (const item of items) io.out(SHOWN_FIELDS.map((field) => item[field]).join('\t'));
  if (items.length === 0) io.err(`no tokens in ${target.where}`);
}

/**
 * The one token named by its tokenId or (`byName`, or when no id matches) its name. The secret
 * itself is refused without being repeated: error output ends up in terminals and CI logs.
 */
async function findToken(
  target: Target,
  command: string,
  wanted: string,
  byName = false,
): Promise<ShownToken> {
  if (wanted.startsWith(TOKEN_PREFIX)) {
    throw new UsageError(
      `${command} wants a tokenId (tok_..., see npm run token -- list) or a name, not the token itself`,
    );
  }
  const items = (await target.table.scan()).map((item) => shown(item));
  const byId = byName ? [] : items.filter((item) => item.tokenId === wanted);
  const matches = byId.length > 0 ? byId : items.filter((item) => item.storedName === wanted);
  // Not a usage mistake: the argument is well formed, the token is not there (exit code 1).
  if (matches.length === 0) {
    throw new Error(
      `no token ${byName ? 'named' : 'with id or name'} ${wanted} in ${target.where}`,
    );
  }
  if (matches.length > 1) {
    throw new Error(
      `${matches.length} tokens are named ${wanted} (${matches.map((m) => m.tokenId).join(', ')}): name one by its tokenId`,
    );
  }
  return matches[0]!;
}

function show(token: ShownToken, io: CliIo): void {
  for (const field of SHOWN_FIELDS) {
    io.out(`${`${field}:`.padEnd(10)}${token[field]}`);
  }
}

async function revoke(target: Target, token: ShownToken, io: CliIo): Promise<void> {
  await target.table.delete(token.hash);
  io.err(
    `revoked ${token.tokenId} (${token.name}); it stops working within the gateway's authorizer cache time`,
  );
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
    return target?.unreachable ?? `cannot reach ${target?.where ?? 'the engine'}`;
  }
  if (name === 'CredentialsProviderError') return `no AWS credentials: ${message}`;
  if (message === 'Region is missing') {
    return "no AWS region: pass --region <r> (the stack's region) or set AWS_REGION";
  }
  return message || String(error);
}
