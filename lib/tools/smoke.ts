/**
 * A short, safe check of any deployment (or `npm start`): create a plant, retry it, provoke each
 * rejection once, then read back and delete what was created where those routes exist, so that
 * nothing is left behind. The id is drawn at random far above typical ids.
 */
import { randomBytes } from 'node:crypto';

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
}

/** Ids the smoke test draws from: 8×10^18 to 9×10^18, far from the ids people type. */
export const SMOKE_ID_RANGE = { min: 8_000_000_000_000_000_000n, max: 9_000_000_000_000_000_000n };

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
  const span = SMOKE_ID_RANGE.max - SMOKE_ID_RANGE.min;
  return SMOKE_ID_RANGE.min + (randomBytes(8).readBigUInt64BE() % span);
}

interface Answer {
  readonly status: number;
  readonly text: string;
}

/** The gateway's answer for a method and path without a route: the operation does not exist. */
const NO_ROUTE = '{"message":"Not Found"}';

/** Runs the steps in order and returns every verdict; never throws for an HTTP outcome. */
export async function runSmoke(options: SmokeOptions): Promise<SmokeStep[]> {
  const base = options.url.endsWith('/') ? options.url : `${options.url}/`;
  const id = options.id ?? randomSmokeId();
  const timeout = (options.timeoutSeconds ?? 10) * 1000;
  const auth = { authorization: `Bearer ${options.token}` };
  const json = { 'content-type': 'application/json' };
  const plant = `{"id":${id},"name":"smoke test","tag":"smoke"}`;
  const steps: SmokeStep[] = [];

  const send = async (method: string, path: string, headers = {}, body?: string) => {
    try {
      const response = await fetch(new URL(path, base), {
        method,
        headers,
        body,
        signal: AbortSignal.timeout(timeout),
      });
      return { status: response.status, text: await response.text() } satisfies Answer;
    } catch (error) {
      const cause = (error as { cause?: { code?: string } }).cause?.code;
      return { status: 0, text: cause ?? (error as Error).message };
    }
  };
  const step = (
    name: string,
    request: string,
    expected: number,
    answer: Answer,
    check: (answer: Answer) => string | undefined = () => undefined,
  ): boolean => {
    const wrong =
      answer.status === 0
        ? `no answer: ${answer.text}`
        : answer.status !== expected
          ? `answered ${answer.text.slice(0, 120) || '(empty body)'}`
          : check(answer);
    steps.push({
      name,
      request,
      expected,
      got: answer.status,
      result: wrong ? 'fail' : 'pass',
      detail: wrong ?? '',
    });
    return !wrong;
  };
  const skip = (name: string, request: string, expected: number, detail: string) =>
    steps.push({ name, request, expected, got: 0, result: 'skip', detail });
  const errorBody = (status: number) => (answer: Answer) => {
    const body = parse(answer.text) as { error?: unknown; message?: unknown } | undefined;
    return body?.error === status && typeof body.message === 'string'
      ? undefined
      : `not an Error body: ${answer.text.slice(0, 120)}`;
  };
  const exactly = (text: string) => (answer: Answer) =>
    answer.text === text ? undefined : `body ${answer.text.slice(0, 120)}, expected ${text}`;

  const created = step(
    'create',
    `POST /plants id=${id}`,
    200,
    await send('POST', 'plants', { ...auth, ...json }, plant),
    exactly('{"name":"smoke test","tag":"smoke"}'),
  );
  if (steps[0]!.got === 0) return steps; // Nothing answers: the other steps would say the same.
  step(
    'retry',
    'POST /plants, same plant',
    200,
    await send('POST', 'plants', { ...auth, ...json }, plant),
    exactly('{"name":"smoke test","tag":"smoke"}'),
  );
  step(
    'conflict',
    'POST /plants, same id, other name',
    409,
    await send('POST', 'plants', { ...auth, ...json }, `{"id":${id},"name":"smoke other"}`),
    errorBody(409),
  );
  step(
    'invalid',
    'POST /plants, id not an integer',
    400,
    await send('POST', 'plants', { ...auth, ...json }, '{"id":"x","name":"smoke test"}'),
    errorBody(400),
  );
  step(
    'no token',
    'POST /plants without Authorization',
    401,
    await send('POST', 'plants', json, plant),
    exactly('{"message":"Unauthorized"}'),
  );
  step(
    'bad token',
    'POST /plants with an unknown token',
    403,
    await send(
      'POST',
      'plants',
      { authorization: `Bearer pst_${randomBytes(32).toString('base64url')}`, ...json },
      plant,
    ),
    exactly('{"message":"Forbidden"}'),
  );
  step(
    'content type',
    'POST /plants as text/plain',
    415,
    await send('POST', 'plants', { ...auth, 'content-type': 'text/plain' }, plant),
    errorBody(415),
  );

  const read = await send('GET', `plants/${id}`, auth);
  if (read.status === 404 && read.text === NO_ROUTE) {
    skip('read back', `GET /plants/${id}`, 200, 'no such route in this deployment');
  } else {
    step('read back', `GET /plants/${id}`, 200, read, (answer) =>
      answer.text === `{"id":${id},"name":"smoke test","tag":"smoke"}`
        ? undefined
        : `body ${answer.text.slice(0, 120)}`,
    );
  }
  const deleted = await send('DELETE', `plants/${id}`, auth);
  if (deleted.status === 404 && deleted.text === NO_ROUTE) {
    skip(
      'delete',
      `DELETE /plants/${id}`,
      204,
      created ? `no such route: plant ${id} is left behind` : 'no such route',
    );
  } else if (step('delete', `DELETE /plants/${id}`, 204, deleted)) {
    step(
      'gone',
      `GET /plants/${id} after the delete`,
      404,
      await send('GET', `plants/${id}`, auth),
    );
  }
  return steps;
}

function parse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
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
