/**
 * The Plant Store client: one method per operation, ids exact both ways, errors as
 * `PlantStoreError`, and retries where the API says to retry. Requests are built by
 * openapi-fetch from the generated `paths`, so a path or parameter that the document no longer
 * has fails to compile; bodies are read as text and parsed here, where ids become `bigint`s.
 */
import createClient, { type Client } from 'openapi-fetch';
import { errorFromAnswer, parseRetryAfter, PlantStoreError } from './errors.js';
import { parseExact, stringifyWithId } from './exact-json.js';
import { toId, type PlantId } from './ids.js';
import {
  isRetryable,
  retryDelay,
  retryPolicy,
  sleep,
  type RetryOptions,
  type RetryPolicy,
} from './retry.js';
import type { components, paths } from './schema.js';

/** A stored plant as the API answers it, `id` a `bigint` with every digit. */
export type StoredPlant = components['schemas']['StoredPlant'];
/** What a create answers: the plant's name and tag, never its id. */
export type Plant = components['schemas']['Plant'];
/** One page of the list. */
export type PlantPage = components['schemas']['PlantPage'];
/** A plant to create; `id` as any `PlantId`. */
export type NewPlant = Omit<components['schemas']['NewPlant'], 'id'> & { readonly id: PlantId };

/** Where the API is, as whom to call it, and how. */
export interface PlantStoreOptions {
  /** The API's base URL: the stack's `ApiUrl`, or `http://127.0.0.1:3000` for `npm start`. */
  readonly baseUrl: string;
  /** A bearer token (`pst_…`) with the scopes of the operations called. */
  readonly token: string;
  /** The `fetch` to send requests with. @default globalThis.fetch */
  readonly fetch?: (request: Request) => Promise<Response>;
  /** Aborts every call of this client, including the waits between retries. */
  readonly signal?: AbortSignal;
  /** How often and how long to retry. @default 3 retries, backoff from 200 ms */
  readonly retry?: RetryOptions;
}

/** Options of one call. */
export interface CallOptions {
  /** Aborts this call (with the client's `signal`, whichever aborts first). */
  readonly signal?: AbortSignal;
}

/** A page request: `limit` from 1 to 100 (the API's default is 20), `cursor` a previous page's `next`. */
export interface PageQuery {
  readonly limit?: number;
  readonly cursor?: string;
}

type Answer = { response: Response; data?: string; error?: unknown };

/** A client of one Plant Store API. */
export class PlantStore {
  readonly #client: Client<paths>;
  readonly #signal?: AbortSignal;
  readonly #retry: RetryPolicy;

  constructor(options: PlantStoreOptions) {
    // Checked here, so that a typo fails at construction rather than on the first call.
    const baseUrl = new URL(options.baseUrl).href;
    if (typeof options.token !== 'string' || options.token === '') {
      throw new TypeError('token must be a non-empty string');
    }
    const send = options.fetch;
    this.#client = createClient<paths>({
      baseUrl,
      headers: { authorization: `Bearer ${options.token}` },
      // Looked up on each call, so that a `fetch` installed later (a test's, a polyfill) is used;
      // called unbound, as a browser's `fetch` must be.
      fetch: (request) => (send ? send(request) : globalThis.fetch(request)),
    });
    this.#signal = options.signal;
    this.#retry = retryPolicy(options.retry);
  }

  /** Creates a plant, or confirms the same one is stored (a safe retry); answers its name and tag. */
  async createPlant(plant: NewPlant, options?: CallOptions): Promise<Plant> {
    const id = toId(plant.id);
    const body = stringifyWithId(id, { name: plant.name, tag: plant.tag });
    const answer = await this.#send(options, (signal) =>
      this.#client.POST('/plants', {
        body: { id, name: plant.name, tag: plant.tag },
        bodySerializer: () => body,
        parseAs: 'text',
        signal,
      }),
    );
    return this.#data(answer) as Plant;
  }

  /** The plant stored under `id`; a `PlantStoreError` with status 404 when there is none. */
  async getPlant(id: PlantId, options?: CallOptions): Promise<StoredPlant> {
    const path = { id: toId(id) };
    const answer = await this.#send(options, (signal) =>
      this.#client.GET('/plants/{id}', { params: { path }, parseAs: 'text', signal }),
    );
    return this.#data(answer) as StoredPlant;
  }

  /** One page of plants, and `next` while more may follow (a page may be short, even empty). */
  async listPage(query: PageQuery = {}, options?: CallOptions): Promise<PlantPage> {
    const params = { query: { limit: query.limit, cursor: query.cursor } };
    const answer = await this.#send(options, (signal) =>
      this.#client.GET('/plants', { params, parseAs: 'text', signal }),
    );
    return this.#data(answer) as PlantPage;
  }

  /**
   * Every plant, page after page, until the last: each plant that exists for the whole walk is
   * yielded exactly once, in no particular order.
   */
  async *listPlants(
    options: { readonly pageSize?: number; readonly signal?: AbortSignal } = {},
  ): AsyncGenerator<StoredPlant, void, undefined> {
    let cursor: string | undefined;
    do {
      const page = await this.listPage(
        { limit: options.pageSize ?? 100, cursor },
        { signal: options.signal },
      );
      yield* page.plants;
      cursor = page.next;
    } while (cursor !== undefined);
  }

  /** Deletes the plant stored under `id`: true when it did, false when there was none. */
  async deletePlant(id: PlantId, options?: CallOptions): Promise<boolean> {
    const path = { id: toId(id) };
    const answer = await this.#send(options, (signal) =>
      this.#client.DELETE('/plants/{id}', { params: { path }, parseAs: 'text', signal }),
    );
    if (answer.response.status === 404 && hasErrorMember(answer.error)) return false;
    this.#data(answer);
    return true;
  }

  /** The parsed body of a 2xx answer; a `PlantStoreError` for any other. */
  #data(answer: Answer): unknown {
    if (!answer.response.ok) throw errorFromAnswer(answer.response, answer.error);
    return answer.data ? parseExact(answer.data) : undefined;
  }

  /** Sends, and sends again while the answer (or its absence) says to and retries are left. */
  async #send<A extends Answer>(
    options: CallOptions | undefined,
    attempt: (signal: AbortSignal | undefined) => Promise<A>,
  ): Promise<A> {
    const signal = combine(this.#signal, options?.signal);
    for (let retry = 0; ; retry++) {
      const last = retry >= this.#retry.retries;
      let answer: A;
      try {
        signal?.throwIfAborted();
        answer = await attempt(signal);
      } catch (error) {
        if (signal?.aborted) throw signal.reason;
        // fetch rejects with a TypeError when no answer came (refused, reset, DNS, CORS); by
        // name, as a `fetch` from another realm (a test runner's, an iframe's) has its own class.
        const { name, message, cause } = error as {
          name?: unknown;
          message?: unknown;
          cause?: { code?: unknown };
        };
        if (name !== 'TypeError') throw error;
        if (last) {
          const code = typeof cause?.code === 'string' ? ` (${cause.code})` : '';
          throw new PlantStoreError(0, `no answer from the API: ${String(message)}${code}`, {
            cause: error,
          });
        }
        await sleep(retryDelay(this.#retry, retry)!, signal);
        continue;
      }
      const { status, headers } = answer.response;
      if (last || !isRetryable(status, !hasErrorMember(answer.error))) return answer;
      const delay = retryDelay(this.#retry, retry, parseRetryAfter(headers.get('retry-after')));
      if (delay === undefined) return answer;
      await sleep(delay, signal);
    }
  }
}

/** Whether a parsed error body is the service's Error (`{error, message}`), not the gateway's. */
function hasErrorMember(body: unknown): boolean {
  return typeof body === 'object' && body !== null && 'error' in body;
}

function combine(a?: AbortSignal, b?: AbortSignal): AbortSignal | undefined {
  if (!a || !b) return a ?? b;
  return AbortSignal.any([a, b]);
}
