/**
 * What a verify case is and what it is given: raw HTTP to the target (bodies as text, so that an
 * id is compared digit for digit and never through a float64), the checks that turn an answer
 * into "expected … got …", and the plants it may create, each claimed from verify's reserved
 * range and registered for the clean-up that runs whatever happens.
 */
import { RESERVED_ID_RANGES, randomIdIn } from '../reserved-ids';
import { hidden } from './report';
import type { ReceiverOptions } from './cases/webhook';
import type { LearntScopes } from './scopes';

/** The scopes a token may hold. */
export type Scope = 'plants:read' | 'plants:write' | 'plants:delete';
export const SCOPES: readonly Scope[] = ['plants:read', 'plants:write', 'plants:delete'];
/**
 * `plants:write` as a token made with 1.2.0 or later holds it: it also changes plants (PUT,
 * PATCH). An older token's keeps what it allowed then (lambda/tokens/principal.ts).
 */
export const CHANGES = 'changes';
/** What a case may need of the token: a scope, or `CHANGES`. */
export type Need = Scope | typeof CHANGES;

/** One case: a name that says what holds, what it needs, and the requests that show it. */
export interface VerifyCase {
  /** `<area>: <what holds>`, unique; the report and JUnit name the case by it. */
  readonly name: string;
  /** Scopes the token must hold, and `CHANGES` when it changes a plant. */
  readonly needs: readonly Need[];
  /** It creates, changes or deletes plants or subscribers: `--read-only` skips it. */
  readonly changes: boolean;
  /** It needs a receiver the target can reach (`--receiver`). */
  readonly receiver?: boolean;
  /** It needs a second token holding `plants:write` alone. */
  readonly writeOnlyToken?: boolean;
  /** The one id of verify's range it always creates (an int64 edge), not a random one. */
  readonly fixedId?: bigint;
  readonly run: (context: VerifyContext) => Promise<void>;
}

/** An answer as received: the body as text, never parsed into numbers. */
export interface Answer {
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
}

/** A request: `token: null` sends no `Authorization`; a body is sent as JSON unless told. */
export interface RequestOptions {
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: string | Uint8Array;
  readonly token?: string | null;
  readonly contentType?: string | null;
}

/** The answer was not what the contract says: what it says, and what came. */
export class Mismatch extends Error {
  constructor(
    readonly expected: string,
    readonly got: string,
  ) {
    super(`expected ${expected}, got ${got}`);
  }
}

/** The case cannot run here, and why. */
export class Skip extends Error {}

/** What the answer must be: a status, and optionally its exact body text and some headers. */
export interface Expected {
  readonly status: number;
  /** The exact body text, or a pattern it matches. */
  readonly text?: string | RegExp;
  /** Header values (a pattern, or `null`: absent). */
  readonly headers?: Readonly<Record<string, string | RegExp | null>>;
}

/** A short, one-line view of an answer. */
export function shown(answer: Answer, headers: readonly string[] = []): string {
  const text = answer.text.length > 100 ? `${answer.text.slice(0, 100)}…` : answer.text;
  const named = headers.map((name) => ` ${name}: ${answer.headers.get(name) ?? '(none)'}`);
  return `${answer.status}${named.join('')}${text ? ` ${text}` : ''}`.replace(/\n/g, ' ');
}

/** Throws a `Mismatch` unless `answer` is as `expected` says. */
export function check(answer: Answer, expected: Expected): Answer {
  const names = Object.keys(expected.headers ?? {});
  const wanted = [
    String(expected.status),
    ...names.map((name) => `${name}: ${describeValue(expected.headers![name]!)}`),
    ...(expected.text === undefined ? [] : [describeValue(expected.text) || '(no body)']),
  ].join(' ');
  const matches = (value: string | null, want: string | RegExp | null) =>
    want === null
      ? value === null
      : typeof want === 'string'
        ? value === want
        : value !== null && want.test(value);
  const ok =
    answer.status === expected.status &&
    names.every((name) => matches(answer.headers.get(name), expected.headers![name]!)) &&
    (expected.text === undefined || matches(answer.text, expected.text));
  if (!ok) throw new Mismatch(wanted, shown(answer, names));
  return answer;
}

function describeValue(value: string | RegExp | null): string {
  return value === null ? '(none)' : typeof value === 'string' ? value : String(value);
}

/** Throws a `Mismatch` unless `condition`. */
export function expectThat(condition: boolean, expected: string, got: string): void {
  if (!condition) throw new Mismatch(expected, got);
}

/** The service's Error body for `status` with exactly `message`. */
export function errorBody(status: number, message: string): string {
  return JSON.stringify({ error: status, message });
}

/** The gateway's own body. */
export function gatewayBody(message: string): string {
  return JSON.stringify({ message });
}

/** Where and as whom the cases run. */
export interface TargetOptions {
  /** The API's base URL, without a trailing slash. */
  readonly url: string;
  readonly token: string;
  /** A token holding `plants:write` alone, for the cases of what such a token is answered. */
  readonly writeOnlyToken?: string;
  /** Milliseconds each request may take. */
  readonly timeoutMs: number;
  /** Where the webhook cases deliver, or none: they are skipped. */
  readonly receiver?: ReceiverOptions;
  /** The `fetch` to send with. @default globalThis.fetch, looked up at each request */
  readonly fetch?: typeof fetch;
  /** Only GET, OPTIONS and HEAD are sent: any other method is refused before it leaves. */
  readonly readOnly?: boolean;
  /** Aborted when the run must stop (SIGINT, SIGTERM): a case's request ends at once. */
  readonly signal?: AbortSignal;
}

/** The methods `readOnly` allows. */
export const SAFE_METHODS: ReadonlySet<string> = new Set(['GET', 'OPTIONS', 'HEAD']);

/** A case's view of the target. */
export class VerifyContext {
  /** Ids this run created and has not deleted: the clean-up deletes them. */
  readonly created = new Set<bigint>();
  /** A tag no other run uses, for the lists by tag. */
  readonly runTag = `verify-${randomIdIn({ min: 0n, max: 2n ** 48n }).toString(36)}`;
  #tags = 0;

  /** A tag of this run that no case used before. */
  freshTag(): string {
    return `${this.runTag}-${++this.#tags}`;
  }

  /** The token's scopes, learnt before the cases run (`scopes.ts`). */
  learnt: LearntScopes = { scopes: new Set(), answers: [] };

  readonly #cleanUps: (() => Promise<void>)[] = [];
  #cleaningUp = false;

  constructor(readonly target: TargetOptions) {}

  /** The receiver the webhook cases deliver to. */
  get receiver(): ReceiverOptions | undefined {
    return this.target.receiver;
  }

  /** Runs `undo` in the clean-up, whatever happens to the cases. */
  onCleanUp(undo: () => Promise<void>): void {
    this.#cleanUps.push(undo);
  }

  /** True once the run was told to stop. */
  get stopped(): boolean {
    return this.target.signal?.aborted === true;
  }

  /** Sends one request; an answer that does not come is a `Mismatch` naming why. */
  async send(method: string, path: string, options: RequestOptions = {}): Promise<Answer> {
    if (this.target.readOnly && !SAFE_METHODS.has(method)) {
      throw new Skip(`--read-only: it sends ${method} ${path.split('?')[0]}`);
    }
    const { body, token = this.target.token } = options;
    const headers: Record<string, string> = {};
    if (token !== null) headers.authorization = `Bearer ${token}`;
    const contentType =
      options.contentType === undefined
        ? body === undefined
          ? null
          : 'application/json'
        : options.contentType;
    if (contentType !== null) headers['content-type'] = contentType;
    Object.assign(headers, options.headers);
    const send = this.target.fetch ?? globalThis.fetch;
    try {
      const response = await send(`${this.target.url}${path}`, {
        method,
        headers,
        // Bytes: fetch would give a string a text/plain content type of its own.
        body: typeof body === 'string' ? Buffer.from(body) : body,
        redirect: 'manual',
        // The clean-up runs after a stop too: only the cases' requests end with the run.
        signal:
          this.target.signal && !this.#cleaningUp
            ? AbortSignal.any([AbortSignal.timeout(this.target.timeoutMs), this.target.signal])
            : AbortSignal.timeout(this.target.timeoutMs),
      });
      // A target that echoes the request (a proxy's error page) never puts a token in a report.
      const secrets = [this.target.token, this.target.writeOnlyToken];
      const echoed = new Headers();
      response.headers.forEach((value, name) => echoed.append(name, hidden(value, secrets)));
      return {
        status: response.status,
        headers: echoed,
        text: hidden(await response.text(), secrets),
      };
    } catch (error) {
      throw new Mismatch(`an answer to ${method} ${path}`, `none: ${whyNoAnswer(error)}`);
    }
  }

  /**
   * A free id of verify's range, claimed: `id` (an edge case's) or a random one; it must not
   * exist (a plant of the range that this run did not create is never touched).
   */
  async claim(id?: bigint): Promise<bigint> {
    const chosen = id ?? randomIdIn(RESERVED_ID_RANGES.verify[0]);
    const answer = await this.send('GET', `/plants/${chosen}`);
    if (answer.status !== 404) {
      throw new Mismatch(
        `404 for GET /plants/${chosen}: verify's range is reserved and this id is left alone`,
        shown(answer),
      );
    }
    return chosen;
  }

  /**
   * Creates a plant at a claimed id (`members` as JSON text without the id, `"name":…`; the id
   * as `spelling` writes it), checks the 200 and registers it for the clean-up; resolves with
   * its id.
   */
  async plant(
    members = '"name":"verify","tag":"verify"',
    id?: bigint,
    spelling: (id: bigint) => string = String,
  ): Promise<bigint> {
    const chosen = await this.claim(id);
    const answer = await this.send('POST', '/plants', {
      body: `{"id":${spelling(chosen)},${members}}`,
    });
    if (answer.status === 200) this.created.add(chosen);
    check(answer, { status: 200 });
    return chosen;
  }

  /** Deletes a plant this run created (and forgets it): the answer of the DELETE. */
  async remove(id: bigint, headers: Readonly<Record<string, string>> = {}): Promise<Answer> {
    const answer = await this.send('DELETE', `/plants/${id}`, { headers });
    if (answer.status === 204 || answer.status === 404) this.created.delete(id);
    return answer;
  }

  /** The current ETag of a plant (from GET), checked to be a strong `"<version>"`. */
  async etag(id: bigint): Promise<string> {
    const read = check(await this.send('GET', `/plants/${id}`), {
      status: 200,
      headers: { etag: /^"\d+"$/ },
    });
    return read.headers.get('etag')!;
  }

  /** Undoes what the cases registered, then deletes every plant this run created; the ids it could not delete. */
  async cleanUp(): Promise<bigint[]> {
    this.#cleaningUp = true;
    for (const undo of this.#cleanUps.splice(0)) await undo().catch(() => undefined);
    const left: bigint[] = [];
    for (const id of [...this.created]) {
      const answer = await this.remove(id).catch(() => undefined);
      if (!answer || (answer.status !== 204 && answer.status !== 404)) left.push(id);
    }
    return left;
  }
}

/** An ETag one version later than `etag` (`"3"` → `"4"`). */
export function nextEtag(etag: string): string {
  return `"${Number(etag.slice(1, -1)) + 1}"`;
}

/** Why no answer came: the system's error code (ECONNREFUSED), or the timeout. */
function whyNoAnswer(error: unknown): string {
  const { name, message, cause } = error as { name?: string; message?: string; cause?: unknown };
  if (name === 'TimeoutError') return 'timed out';
  if (name === 'AbortError') return 'interrupted';
  const code = (cause as { code?: string } | undefined)?.code;
  return code ?? message ?? String(error);
}
