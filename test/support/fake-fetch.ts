/** A `fetch` for client tests without a network: it records each request and answers in turn. */
import { PlantStore } from '@plant-store/client';

/** One answer: a status with its body and headers, or an error `fetch` rejects with. */
export type Reply = { status: number; body?: string; headers?: Record<string, string> } | Error;

/** A `fetch` that records each request and gives the next reply (the last one repeats). */
export function fakeFetch(...replies: Reply[]) {
  const requests: { method: string; url: string; headers: Headers; body: string }[] = [];
  const fetch = async (request: Request): Promise<Response> => {
    requests.push({
      method: request.method,
      url: request.url,
      headers: request.headers,
      body: await request.text(),
    });
    const reply = replies[Math.min(requests.length, replies.length) - 1]!;
    if (!('status' in reply)) throw reply;
    return new Response(reply.body ?? null, {
      status: reply.status,
      headers: { 'content-type': 'application/json', ...reply.headers },
    });
  };
  return { fetch, requests };
}

/** A well-formed token for client tests (no service ever sees it). */
export const TEST_TOKEN = 'pst_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA';

/** A client over `fetch` with `retries` quick retries (1 ms apart) and `TEST_TOKEN`. */
export const fakeStore = (fetch: (request: Request) => Promise<Response>, retries = 3) =>
  new PlantStore({
    baseUrl: 'https://api.example/',
    token: TEST_TOKEN,
    fetch,
    retry: { retries, baseDelayMs: 1 },
  });
