/**
 * The Plant Store client: a list of operations, each a route and a way to read its answer, over
 * one pipeline (request.ts) that every option passes through once. Ids are exact both ways;
 * errors are the classes of errors.ts; each call's promise has `.withResponse()`.
 */
import { APIPromise, type WithResponse } from './api-promise.js';
import { checkBaseUrl } from './base-url.js';
import {
  errorFromAnswer,
  isServiceError,
  malformedAnswer,
  parseError,
  PermissionDeniedError,
  PreconditionFailedError,
} from './errors.js';
import { MalformedJson, parseExact, stringifyWithId, type Int64Answers } from './exact-json.js';
import { toId, type PlantId } from './ids.js';
import { levelLogger, type Logger, type LogLevel } from './logging.js';
import { walkPages, type PlantPage } from './pages.js';
import {
  send,
  type Answer,
  type CallOptions,
  type Method,
  type Route,
  type Settings,
} from './request.js';
import { retryPolicy } from './retry.js';
import { INT64_ANSWERS, NEW_PLANT_MEMBERS, type components, type paths } from './schema.js';
import { checkTimeout, DEFAULT_TIMEOUT_MS } from './timeout.js';
import { ifMatchHeader, versionOf, type IfMatch } from './versions.js';

/** A stored plant as the API answers it, `id` a `bigint` with every digit. */
export type StoredPlant = components['schemas']['StoredPlant'];
/**
 * A plant as a read or a change answers it, with its `version` (the answer's `ETag`): pass it
 * as `ifMatch` to change or delete only that version. `undefined` when the answer had no `ETag`
 * (a proxy dropped it): then there is no version to match. `version` is not enumerable, so that
 * `{ ...plant }`, `toEqual` and `console.log` see the API's StoredPlant.
 */
export type VersionedPlant = StoredPlant & { readonly version: number | undefined };
/**
 * What `patchPlant` answers to a token without `plants:read`: the change happened, and the API
 * says only the new `version` (its `ETag`; `undefined` when a proxy dropped it), so the plant's
 * other members are unknown here.
 */
export interface PlantVersion {
  readonly id: bigint;
  readonly version: number | undefined;
}
/** What `updatePlant` sends: every member but the id (one left out is removed). */
export type PlantUpdate = Omit<components['schemas']['PlantReplacement'], 'id'>;
/** What `patchPlant` sends, a JSON Merge Patch: a member set, `null` removes it, absent keeps it. */
export type PlantPatch = Omit<components['schemas']['PlantPatch'], 'id'>;
/** What a create answers: the plant's name and tag, never its id. */
export type Plant = components['schemas']['Plant'];
/** A plant to create; `id` as any `PlantId`. */
export type NewPlant = Omit<components['schemas']['NewPlant'], 'id'> & { readonly id: PlantId };
export type { CallOptions, IfMatch, PlantPage };

/** Options of a call that changes or deletes a plant. */
export interface WriteOptions extends CallOptions {
  /**
   * Apply only while the plant is at this version (a read's `version`), one of these, or any
   * (`'*'`: it exists); otherwise a `PreconditionFailedError` and nothing changes. Given as
   * `undefined` (a read's `version` when its answer had no `ETag`), a `TypeError`: a condition
   * asked for is never dropped unasked.
   * @default - whatever version is stored
   */
  readonly ifMatch?: IfMatch;
}

/** Where the API is, as whom to call it, and how: the defaults of every call. */
export interface PlantStoreOptions extends CallOptions {
  /**
   * The API's base URL: the stack's `ApiUrl`, or `http://127.0.0.1:3000` for `npm start`.
   * `https:`, or `http:` to a loopback host; no query, fragment, user name or password.
   */
  readonly baseUrl: string;
  /**
   * Allows `http:` to any host, for an API reached over a private network whose TLS ends in
   * front of it: the token then crosses that network in clear text.
   * @default false - plain HTTP only to a loopback host
   */
  readonly allowInsecureHttp?: boolean;
  /** A bearer token (`pst_…`) with the scopes of the operations called. */
  readonly token: string;
  /** The `fetch` to send requests with. @default globalThis.fetch */
  readonly fetch?: (request: Request) => Promise<Response>;
  /** Aborts every call of this client, including the waits between retries. */
  readonly signal?: AbortSignal;
  /** Per attempt, in milliseconds. @default 35000 (the API's 30 s integration limit, and 5 s) */
  readonly timeout?: number;
  /** Where retries (`warn`) and each request and answer (`debug`) are told. @default console */
  readonly logger?: Logger;
  /** The least severe level logged. @default 'warn' */
  readonly logLevel?: LogLevel;
}

/**
 * A page request: `limit` from 1 to 100 (the API's default is 20), `tag` to list only the plants
 * with that tag (in id order), `cursor` a previous page's `next` — of the same list: a tag list's
 * cursor is valid with its tag only.
 */
export interface PageQuery {
  readonly limit?: number;
  readonly tag?: string;
  readonly cursor?: string;
}

/**
 * A walk of the list: `pageSize` plants a page (default 100), only those of `tag` when given,
 * from `cursor` (a saved `next` of the same list).
 */
export interface WalkOptions extends CallOptions {
  readonly pageSize?: number;
  readonly tag?: string;
  readonly cursor?: string;
}

// The routes, checked against the generated document: a path it no longer has fails to compile.
const PLANTS = '/plants' satisfies keyof paths;
const PLANT = '/plants/{id}' satisfies keyof paths;
type ListQuery = Required<NonNullable<paths[typeof PLANTS]['get']['parameters']['query']>>;

/** An operation's answers' int64 locations, by status (none: every number a `number`). */
type AnswerInt64s = Int64Answers[string][string] | undefined;
const int64sOf = (path: keyof paths, method: Lowercase<Method>): AnswerInt64s =>
  INT64_ANSWERS[path]?.[method];

/** RFC 6750's b64token: what a bearer token may be, and a header value can carry. */
const BEARER_TOKEN = /^[\w\-.~+/]+=*$/;

/** A client of one Plant Store API. */
export class PlantStore {
  readonly #settings: Settings;

  constructor(options: PlantStoreOptions) {
    // Checked here, so that a typo fails at construction rather than on the first call.
    const baseUrl = checkBaseUrl(options.baseUrl, options.allowInsecureHttp === true);
    if (options.token === undefined || options.token === null || options.token === '') {
      // The usual cause is an unset environment variable: say that, not that the token is malformed.
      throw new TypeError('no token given: token must be a bearer token (pst_…)');
    }
    if (typeof options.token !== 'string' || !BEARER_TOKEN.test(options.token)) {
      // Never the token itself: it may be a real one with a stray newline.
      throw new TypeError(
        'token must be a bearer token: letters, digits and -._~+/ (= only at the end), no space or line break',
      );
    }
    this.#settings = {
      baseUrl,
      token: options.token,
      fetch: options.fetch,
      signal: options.signal,
      timeout: checkTimeout(options.timeout ?? DEFAULT_TIMEOUT_MS),
      retry: retryPolicy(options.retry),
      headers: new Headers(options.headers),
      log: levelLogger(options.logger, options.logLevel),
    };
  }

  /** Creates a plant, or confirms the same one is stored (a safe retry); answers its name and tag. */
  createPlant(plant: NewPlant, options?: CallOptions): APIPromise<Plant> {
    return this.#send(
      options,
      () => ({
        method: 'POST',
        path: PLANTS,
        body: stringifyWithId(toId(plant.id), newPlantMembers(plant)),
      }),
      (answer) => this.#object<Plant>(answer, int64sOf(PLANTS, 'post')),
    );
  }

  /** The plant stored under `id`, with its `version`; a `NotFoundError` when there is none. */
  getPlant(id: PlantId, options?: CallOptions): APIPromise<VersionedPlant> {
    return this.#send(
      options,
      () => ({ method: 'GET', path: plantPath(id) }),
      (answer) => this.#versioned(answer, int64sOf(PLANT, 'get')),
    );
  }

  /**
   * Replaces the members of the plant stored under `id` (all but its id; one left out is
   * removed) and answers it with its new `version` (to a token without `plants:read`, the
   * plant as sent). `NotFoundError` when there is none (this
   * never creates one), `PreconditionFailedError` when `ifMatch` names another version (not
   * when a retry finds the version this call's own lost attempt made).
   */
  updatePlant(id: PlantId, plant: PlantUpdate, options?: WriteOptions): APIPromise<VersionedPlant> {
    const members = newPlantMembers(plant);
    return this.#send(
      options,
      () => ({
        method: 'PUT',
        path: plantPath(id),
        body: JSON.stringify(members),
        headers: conditions(options),
      }),
      (answer) =>
        // A token without plants:read is answered 204 and the version: the plant is what it sent.
        answer.response.status === 204
          ? this.#withVersion({ id: toId(id), ...members } as StoredPlant, answer)
          : this.#changed(id, answer, options, int64sOf(PLANT, 'put'), (stored) =>
              NEW_PLANT_MEMBERS.every(
                (member) => member === 'id' || stored[member] === members[member],
              ),
            ),
    );
  }

  /**
   * Changes the members `patch` names (`null` removes one: `{ tag: null }`) and keeps the
   * others; answers the plant with its new `version` (to a token without `plants:read`, only
   * `{ id, version }`: the members it did not send are unknown). Errors as `updatePlant`.
   */
  patchPlant(
    id: PlantId,
    patch: PlantPatch,
    options?: WriteOptions,
  ): APIPromise<VersionedPlant | PlantVersion> {
    const members = newPlantMembers(patch, true);
    return this.#send(
      options,
      () => ({
        method: 'PATCH',
        path: plantPath(id),
        body: JSON.stringify(members),
        contentType: 'application/merge-patch+json',
        headers: conditions(options),
      }),
      (answer) =>
        // A token without plants:read is answered 204 and the version: the change was made.
        answer.response.status === 204
          ? { id: toId(id), version: this.#version(answer) }
          : this.#changed(id, answer, options, int64sOf(PLANT, 'patch'), (stored) =>
              Object.entries(members).every(
                ([member, value]) => stored[member] === (value ?? undefined),
              ),
            ),
    );
  }

  /**
   * One page of plants (of `tag` only, when given), and `next` while more may follow (a page may
   * be short, even empty). A list by tag just after a deploy added its index fails with an
   * `InternalServerError` of status 503 (`retryAfter` 30, longer than a retry waits) until the
   * index is built.
   */
  listPage(query: PageQuery = {}, options?: CallOptions): APIPromise<PlantPage> {
    const { limit, tag, cursor } = query;
    return this.#send(
      options,
      () => ({
        method: 'GET',
        path: PLANTS,
        query: { limit, tag, cursor } satisfies Partial<ListQuery>,
      }),
      (answer) =>
        this.#object<PlantPage>(answer, int64sOf(PLANTS, 'get'), (page) =>
          Array.isArray(page.plants),
        ),
    );
  }

  /**
   * Each page, from `cursor` (the beginning when absent) until the last. Save a page's `next`
   * once the page is done with: a walk that stopped resumes from it.
   */
  pages(options: WalkOptions = {}): AsyncGenerator<PlantPage, void, undefined> {
    const { pageSize = 100, tag, cursor, ...call } = options;
    return walkPages((next) => this.listPage({ limit: pageSize, tag, cursor: next }, call), cursor);
  }

  /**
   * Every plant (every one of `tag`, in id order, when given), page after page, from `cursor`
   * (the beginning when absent) until the last: each plant that exists for the whole walk is
   * yielded exactly once; without a tag, in no particular order.
   */
  async *listPlants(options: WalkOptions = {}): AsyncGenerator<StoredPlant, void, undefined> {
    for await (const page of this.pages(options)) yield* page.plants;
  }

  /**
   * Deletes the plant stored under `id`. `true`: it is gone, and this call deleted it — or may
   * have: when an earlier attempt's answer was lost (a reset, a timeout, the gateway's 500 or
   * 503, the service's 503 to a write) and the retry finds nothing, that attempt probably
   * deleted it. `false`: there was none. Without `ifMatch`, that retry deletes a plant created
   * again under `id` in between; with it, it throws `PreconditionFailedError` instead.
   */
  deletePlant(id: PlantId, options?: WriteOptions): APIPromise<boolean> {
    return this.#send(
      options,
      () => ({ method: 'DELETE', path: plantPath(id), headers: conditions(options) }),
      (answer) => {
        if (answer.response.status === 404 && isServiceError(parseError(answer.text))) {
          return answer.mayHaveActed;
        }
        this.#data(answer, int64sOf(PLANT, 'delete'));
        return true;
      },
    );
  }

  /** One call: the route built (a bad id rejects here, before anything is sent), sent, read. */
  #send<T>(
    options: CallOptions | undefined,
    route: () => Route,
    read: (answer: Answer) => T | Promise<T>,
  ): APIPromise<T> {
    const answer = (async (): Promise<WithResponse<T>> => {
      const sent = await send(this.#settings, route(), options);
      return { data: await read(sent), response: sent.response };
    })();
    return new APIPromise(answer);
  }

  /**
   * The parsed body of a 2xx answer, each int64 its status's schema places exact; the error of
   * errors.ts for any other.
   */
  #data({ response, text }: Answer, int64s: AnswerInt64s): unknown {
    if (!response.ok) {
      // A body that repeats the token (a misbehaving proxy) must not carry it into the error.
      throw errorFromAnswer(response, parseError(text.replaceAll(this.#settings.token, '…')));
    }
    if (text === '') return undefined;
    try {
      return parseExact(text, int64s?.[response.status] ?? int64s?.default ?? {});
    } catch (error) {
      if (error instanceof MalformedJson) throw malformedAnswer(response, error.message, error);
      throw error;
    }
  }

  /**
   * What a change answers: the plant with its new version. A 412 after a retry, when an earlier
   * attempt's answer was lost, may be that attempt's own doing (it raised the version `ifMatch`
   * named): the plant is read again, and when it is one version above one `ifMatch` named and
   * holds what this change sent (`applied`), that attempt made it and it is the answer — as
   * `deletePlant` takes a 404 after a lost attempt. Otherwise the 412 stands; when the token may
   * not read (403) and the plant is one version above, its message says it may be that attempt's.
   */
  async #changed(
    id: PlantId,
    answer: Answer,
    options: WriteOptions | undefined,
    int64s: AnswerInt64s,
    applied: (stored: Readonly<Record<string, unknown>>) => boolean,
  ): Promise<VersionedPlant> {
    const named = options?.ifMatch;
    if (
      answer.response.status === 412 &&
      answer.mayHaveActed &&
      typeof named !== 'string' &&
      named !== undefined &&
      isServiceError(parseError(answer.text))
    ) {
      const after = (typeof named === 'number' ? [named] : named).map((version) => version + 1);
      const current = await this.getPlant(id, options).catch((error: unknown) => error);
      if (current instanceof PermissionDeniedError) {
        // A token without plants:read cannot tell: the 412 stands, and says it may be ours.
        const body = parseError(answer.text.replaceAll(this.#settings.token, '…'));
        const refused = errorFromAnswer(answer.response, body);
        const version = refused instanceof PreconditionFailedError ? refused.currentVersion : 0;
        if (!(refused instanceof PreconditionFailedError) || !after.includes(version ?? 0)) {
          throw refused;
        }
        throw new PreconditionFailedError(
          412,
          `${refused.message} (perhaps by this call's own lost attempt: the token may not read the plant to tell)`,
          { error: refused.error, headers: refused.headers, cause: current },
        );
      }
      if (current instanceof Error) return this.#versioned(answer, int64s);
      const plant = current as VersionedPlant;
      if (plant.version !== undefined && after.includes(plant.version) && applied(plant)) {
        return plant;
      }
    }
    return this.#versioned(answer, int64s);
  }

  /**
   * A stored plant and the version its answer's `ETag` names, as a property that is not
   * enumerable: the plant spreads, compares and prints as the API's StoredPlant.
   */
  #versioned(answer: Answer, int64s: AnswerInt64s): VersionedPlant {
    const plant = this.#object<StoredPlant>(
      answer,
      int64s,
      (value) => typeof value.id === 'bigint',
    );
    return this.#withVersion(plant, answer);
  }

  /** `plant` with the version its answer's `ETag` names, as `#versioned` gives it. */
  #withVersion(plant: StoredPlant, answer: Answer): VersionedPlant {
    return Object.defineProperty(plant, 'version', {
      value: this.#version(answer),
    }) as VersionedPlant;
  }

  /**
   * The version an answer's `ETag` names; `undefined` when it has none (a proxy may drop it:
   * inventing one would make every `ifMatch` with it fail); a malformed answer when it names none.
   */
  #version(answer: Answer): number | undefined {
    const etag = answer.response.headers.get('etag');
    if (etag === null) return undefined;
    const version = versionOf(etag);
    if (version === undefined) throw malformedAnswer(answer.response, 'an ETag that is no version');
    return version;
  }

  /** The body as an object of the API; a malformed answer when it is none, or fails `check`. */
  #object<T>(
    answer: Answer,
    int64s: AnswerInt64s,
    check: (value: Record<string, unknown>) => boolean = () => true,
  ): T {
    const value = this.#data(answer, int64s);
    const object = typeof value === 'object' && value !== null && !Array.isArray(value);
    if (!object || !check(value as Record<string, unknown>)) {
      throw malformedAnswer(answer.response, 'not the object the API documents');
    }
    return value as T;
  }
}

/**
 * NewPlant's members besides `id` that `plant` has, as the list generated from openapi.json
 * names them: a member added to the API is sent with no edit here, anything else the object
 * holds (a read's `id` and `version`) is not. `null` is kept for a merge patch (it removes).
 */
function newPlantMembers(plant: object, keepNull = false): Record<string, unknown> {
  const source = plant as Record<string, unknown>;
  return Object.fromEntries(
    NEW_PLANT_MEMBERS.filter(
      (member) =>
        member !== 'id' && source[member] !== undefined && (keepNull || source[member] !== null),
    ).map((member) => [member, source[member]]),
  );
}

/**
 * The `If-Match` header a write's options ask for, if any; `ifMatch` given as `undefined` (a
 * version unknown: its answer had no `ETag`) is a `TypeError` rather than no condition.
 */
function conditions(options: WriteOptions | undefined): Record<string, string> | undefined {
  if (options && 'ifMatch' in options && options.ifMatch === undefined) {
    throw new TypeError(
      'ifMatch is undefined: the version is unknown (its answer had no ETag); read the plant again, or leave ifMatch out to change whatever is stored',
    );
  }
  return options?.ifMatch === undefined
    ? undefined
    : { 'if-match': ifMatchHeader(options.ifMatch) };
}

/** `/plants/{id}` for an id (a `TypeError` for one the client refuses). */
function plantPath(id: PlantId): string {
  return PLANT.replace('{id}', String(toId(id)));
}
