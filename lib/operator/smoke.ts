/**
 * A short, safe check of any deployment (or `npm start`): create a plant, retry it, provoke each
 * rejection once, then read back, change (and a stale change: 412) and delete what was created
 * where those routes exist, so that nothing is left behind. The id is drawn at random far above typical ids. Every request goes
 * through `@plant-store/client`, as a user's program would.
 */
import { PlantStore, PlantStoreError } from '@plant-store/client';
import { randomBytes } from 'node:crypto';
import { parseCommandLine, UsageError } from '../cli/args';
import type { CliIo } from '../cli/run';
import { commandToken, findingNpmStart, localApiTarget } from '../npm-start/find';
import { randomIdIn, RESERVED_ID_RANGES } from './reserved-ids';

/** Where and as whom to run. */
export interface SmokeOptions {
  /** The API's base URL (`ApiUrl`, or `http://127.0.0.1:3000` for `npm start`). */
  readonly url: string;
  /** A token with `plants:write` (and `plants:read`, `plants:delete` for the read-back and clean-up). */
  readonly token: string;
  /** The plant id to use; by default a random one from `SMOKE_ID_RANGE`. */
  readonly id?: bigint;
  /** Seconds each request may take. @default 10 */
  readonly timeoutSeconds?: number;
  /**
   * Aborted to stop (Ctrl-C): no further check is sent, the plant is deleted, and the run ends
   * with a failed `interrupted` step. @default - runs to its end
   */
  readonly signal?: AbortSignal;
}

/** Ids the smoke test draws from: its range in `RESERVED_ID_RANGES`. */
export const SMOKE_ID_RANGE = RESERVED_ID_RANGES.smoke[0];

/** What `npm run smoke -- --help` prints. */
export const SMOKE_HELP = `Usage: PLANT_STORE_TOKEN=<token> npm run smoke -- --url <ApiUrl>

Checks a deployment (or npm start) with a short, safe sequence: create a plant, retry it (200),
conflict (409), invalid body (400), no token (401), unknown token (403), wrong content type
(415), then read back (GET /plants/{id}), change it (PATCH with If-Match, and a stale one:
412) and delete what it created where those routes exist.
The id is random, from ${SMOKE_ID_RANGE.min} to ${SMOKE_ID_RANGE.max}.

  --url <url>      the API's base URL: the stack output ApiUrl (default:
                   ${findingNpmStart('API', '                   ')})
  --token <token>  the token, instead of PLANT_STORE_TOKEN; avoid it: a command line is shown
                   by npm and ps, and kept in shell history
  --help           this text

  PLANT_STORE_TOKEN  a token with plants:write (plants:read and plants:delete to read and clean
                     up); without one and without --url, the dev token of the npm start running
                     with its data in PLANT_STORE_DATA_DIR (default .plant-store), sent only to
                     the URL it recorded there

A token the service refuses (unknown, expired, revoked, or without plants:write) stops the check
at the first step: "token refused", and why. Ctrl-C stops it too: nothing more is checked, the
plant is deleted, and an "interrupted" step fails the run.

Exit code: 0 when every step passed or was skipped, 1 when one failed, 2 for a usage mistake.`;

/** One step's verdict. */
export interface SmokeStep {
  readonly name: string;
  readonly request: string;
  readonly expected: number;
  /** The status received, or 0 when no answer came. */
  readonly got: number;
  readonly result: 'pass' | 'fail' | 'skip';
  readonly detail: string;
}

/** A random id in `SMOKE_ID_RANGE`. */
export function randomSmokeId(): bigint {
  return randomIdIn(SMOKE_ID_RANGE);
}

/** What one step's call came to: the status received (0 for none), and the value or the error. */
interface Outcome {
  readonly status: number;
  readonly value?: unknown;
  readonly error?: unknown;
  /** Not sent, or cut short, because the run was stopped: no verdict. */
  readonly stopped?: true;
}

/** Runs the steps in order and returns every verdict; never throws for an HTTP outcome. */
export async function runSmoke(options: SmokeOptions): Promise<SmokeStep[]> {
  const id = options.id ?? randomSmokeId();
  const timeout = (options.timeoutSeconds ?? 10) * 1000;
  const plant = { id, name: 'smoke test', tag: 'smoke' };
  const steps: SmokeStep[] = [];

  // Every call goes through the client; its `fetch` notes each status, and for the steps that
  // must send what the client never would, changes a header on the way out. No retries: each
  // step reports the first answer.
  let status = 0;
  const client = (token: string, change?: (headers: Headers) => void) =>
    new PlantStore({
      baseUrl: options.url,
      token,
      retry: { retries: 0 },
      fetch: async (request) => {
        if (change) {
          const headers = new Headers(request.headers);
          change(headers);
          request = new Request(request, { headers });
        }
        status = 0;
        const response = await fetch(request);
        status = response.status;
        return response;
      },
    });
  const store = client(options.token);
  const stopped = () => options.signal?.aborted === true;
  /** One step's call; once stopped, only the clean-up's is sent (and the stop does not end it). */
  const call = async (
    run: (signal: AbortSignal) => Promise<unknown>,
    cleanUp = false,
  ): Promise<Outcome> => {
    if (stopped() && !cleanUp) return { status: 0, stopped: true };
    const signal =
      options.signal && !cleanUp
        ? AbortSignal.any([AbortSignal.timeout(timeout), options.signal])
        : AbortSignal.timeout(timeout);
    try {
      const value = await run(signal);
      return { status, value };
    } catch (error) {
      if (stopped() && !cleanUp) return { status: 0, stopped: true };
      return { status: error instanceof PlantStoreError ? error.status : 0, error };
    }
  };

  const step = (
    name: string,
    request: string,
    expected: number,
    outcome: Outcome,
    check: (outcome: Outcome) => string | undefined = () => undefined,
  ): boolean => {
    if (outcome.stopped) return false;
    const wrong =
      outcome.status === 0
        ? `no answer: ${noAnswer(outcome.error)}`
        : outcome.status !== expected
          ? `answered ${describe(outcome)}`
          : check(outcome);
    steps.push({
      name,
      request,
      expected,
      got: outcome.status,
      result: wrong ? 'fail' : 'pass',
      detail: wrong ?? '',
    });
    return !wrong;
  };
  const skip = (name: string, request: string, expected: number, detail: string) =>
    steps.push({ name, request, expected, got: 0, result: 'skip', detail });
  /** The service's own Error answer (`{error, message}`), not the gateway's. */
  const serviceError = (outcome: Outcome) =>
    outcome.error instanceof PlantStoreError && !outcome.error.fromGateway
      ? undefined
      : `not an Error body: ${describe(outcome)}`;
  const gateway = (message: string) => (outcome: Outcome) =>
    outcome.error instanceof PlantStoreError &&
    outcome.error.fromGateway &&
    outcome.error.message === message
      ? undefined
      : `expected the gateway's {"message":"${message}"}, got ${describe(outcome)}`;
  const equals = (expected: unknown) => (outcome: Outcome) =>
    describe({ status: 0, value: expected }) === describe(outcome)
      ? undefined
      : `got ${describe(outcome)}, expected ${describe({ status: 0, value: expected })}`;
  /** The gateway's answer for a method and path without a route: the operation does not exist. */
  const noRoute = (outcome: Outcome) =>
    outcome.error instanceof PlantStoreError &&
    outcome.error.fromGateway &&
    outcome.error.status === 404;
  const created = { name: 'smoke test', tag: 'smoke' };

  const first = await call((signal) => store.createPlant(plant, { signal }));
  const refused = tokenRefused(first);
  const stored = step('create', `POST /plants id=${id}`, 200, first, equals(created));
  if (first.stopped) {
    skip('create', `POST /plants id=${id}`, 200, 'cut short by the stop (the delete follows)');
  }
  // Nothing answers, or the token is refused: every other step would fail for the same reason.
  if (first.status === 0 && !first.stopped) return steps;
  if (refused) {
    steps[steps.length - 1] = { ...steps.at(-1)!, detail: refused };
    return steps;
  }
  step(
    'retry',
    'POST /plants, same plant',
    200,
    await call((signal) => store.createPlant(plant, { signal })),
    equals(created),
  );
  step(
    'conflict',
    'POST /plants, same id, other name',
    409,
    await call((signal) => store.createPlant({ id, name: 'smoke other' }, { signal })),
    serviceError,
  );
  step(
    'invalid',
    'POST /plants, name not a string',
    400,
    await call((signal) => store.createPlant({ id, name: 5 as unknown as string }, { signal })),
    serviceError,
  );
  step(
    'no token',
    'POST /plants without Authorization',
    401,
    await call((signal) =>
      client(options.token, (headers) => headers.delete('authorization')).createPlant(plant, {
        signal,
      }),
    ),
    gateway('Unauthorized'),
  );
  step(
    'bad token',
    'POST /plants with an unknown token',
    403,
    await call((signal) =>
      client(`pst_${randomBytes(32).toString('base64url')}`).createPlant(plant, { signal }),
    ),
    gateway('Forbidden'),
  );
  step(
    'content type',
    'POST /plants as text/plain',
    415,
    await call((signal) =>
      client(options.token, (headers) => headers.set('content-type', 'text/plain')).createPlant(
        plant,
        { signal },
      ),
    ),
    serviceError,
  );

  const read = await call((signal) => store.getPlant(id, { signal }));
  if (noRoute(read)) {
    skip('read back', `GET /plants/${id}`, 200, 'no such route in this deployment');
  } else {
    step('read back', `GET /plants/${id}`, 200, read, equals({ id, ...created }));
  }
  const version = (read.value as { version?: number } | undefined)?.version ?? 1;
  const changes = { name: 'smoke test changed' };
  const changed = await call((signal) =>
    store.patchPlant(id, changes, { ifMatch: version, signal }),
  );
  if (noRoute(changed)) {
    skip('change', `PATCH /plants/${id}`, 200, 'no such route in this deployment');
  } else if (
    step(
      'change',
      `PATCH /plants/${id} If-Match "${version}"`,
      200,
      changed,
      equals({ id, ...created, ...changes }),
    )
  ) {
    step(
      'stale change',
      `PATCH /plants/${id} If-Match "${version}" again`,
      412,
      await call((signal) => store.patchPlant(id, changes, { ifMatch: version, signal })),
      serviceError,
    );
  }
  // Stopped: what was not sent is not judged, but the plant (stored, or maybe stored by a create
  // cut short) is deleted all the same.
  if (stopped()) {
    steps.push({
      name: 'interrupted',
      request: '-',
      expected: 0,
      got: 0,
      result: 'fail',
      detail: 'stopped by a signal; the checks after the last step above were not sent',
    });
  }
  const deleted = await call((signal) => store.deletePlant(id, { signal }), true);
  if (first.stopped && deleted.status === 404) {
    skip('delete', `DELETE /plants/${id}`, 204, 'the create was cut short and stored nothing');
  } else if (noRoute(deleted)) {
    skip(
      'delete',
      `DELETE /plants/${id}`,
      204,
      stored ? `no such route: plant ${id} is left behind` : 'no such route',
    );
  } else if (step('delete', `DELETE /plants/${id}`, 204, deleted, equals(true))) {
    step(
      'gone',
      `GET /plants/${id} after the delete`,
      404,
      await call((signal) => store.getPlant(id, { signal })),
      serviceError,
    );
  }
  return steps;
}

/**
 * Why the first create says the token cannot be used, or `undefined`: the gateway's 401 or 403
 * (no token, or one the authorizer refused), or the function's 403 (a scope is missing).
 */
function tokenRefused(outcome: Outcome): string | undefined {
  const { error } = outcome;
  if (!(error instanceof PlantStoreError) || (error.status !== 401 && error.status !== 403)) {
    return undefined;
  }
  const why = !error.fromGateway
    ? error.message
    : error.status === 403
      ? 'unknown, expired or revoked here, or made for another deployment'
      : 'no token was sent';
  return `token refused (${error.status} ${why}): the other steps need one this service accepts`;
}

/** A value or error in one short line; ids (bigints) with every digit. */
function describe(outcome: Outcome): string {
  if (outcome.error !== undefined) {
    const error = outcome.error as Error;
    return `${outcome.status} ${error.message}`.slice(0, 120);
  }
  const text = JSON.stringify(outcome.value, (_key, value: unknown) =>
    typeof value === 'bigint' ? `${value}n` : value,
  );
  return (text ?? '(nothing)').slice(0, 120);
}

/** Why no answer came: the system's error code (ECONNREFUSED), or the timeout. */
function noAnswer(error: unknown): string {
  const { name, message, cause } = error as { name?: string; message?: string; cause?: unknown };
  if (name === 'TimeoutError') return 'timed out';
  const code = (cause as { cause?: { code?: string } } | undefined)?.cause?.code;
  return code ?? message ?? String(error);
}

/** The steps as a table, and a summary line. */
export function formatSmoke(steps: readonly SmokeStep[]): string {
  const rows = [
    ['step', 'request', 'expected', 'got', 'result'],
    ...steps.map((s) => [
      s.name,
      s.request,
      String(s.expected),
      s.got ? String(s.got) : '-',
      s.detail ? `${s.result}: ${s.detail}` : s.result,
    ]),
  ];
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
  const lines = rows.map((row) =>
    row
      .map((cell, column) => (column === row.length - 1 ? cell : cell.padEnd(widths[column]!)))
      .join('  '),
  );
  const count = (result: SmokeStep['result']) => steps.filter((s) => s.result === result).length;
  lines.push(
    '',
    `${count('pass')} passed, ${count('fail')} failed, ${count('skip')} skipped (${steps.length} steps)`,
  );
  return lines.join('\n');
}

/** True when no step failed (skipped steps are operations this deployment does not have). */
export function smokePassed(steps: readonly SmokeStep[]): boolean {
  return steps.length > 0 && steps.every((s) => s.result !== 'fail');
}

/**
 * `npm run smoke -- --url <ApiUrl>` (bin/smoke.ts hands it to runCli): without `--url`, the
 * running npm start, as the other CLIs find it, and its dev token by default. Answers the exit
 * code: 0 when no step failed.
 */
export async function runSmokeCli(argv: readonly string[], io: CliIo): Promise<number> {
  const { values, help } = parseCommandLine(argv, {
    url: { type: 'string' },
    token: { type: 'string' },
  });
  if (help) {
    io.out(SMOKE_HELP);
    return 0;
  }
  const local = values.url === undefined;
  const url = values.url ?? localApiTarget(io.env).url;
  // The URL first: a token is worth looking for only once we know where it will be sent.
  try {
    const parsed = new URL(url);
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new Error();
  } catch {
    throw new UsageError(`--url must be an http(s) URL like the stack output ApiUrl, got ${url}`);
  }
  // As verify warns: the token is as visible as the command line it was typed on.
  if (values.token !== undefined) {
    io.err('smoke: --token shows in ps and shell history; prefer PLANT_STORE_TOKEN');
  }
  const token = commandToken(values.token, url, local, io.env);
  const steps = await runSmoke({ url, token, signal: io.signal });
  io.out(formatSmoke(steps));
  return smokePassed(steps) ? 0 : 1;
}
