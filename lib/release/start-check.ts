/**
 * `npm run release -- check-start <cdk outputs file>`: the deploy job's check that the deployed
 * functions start. Every function starts the same way (Lambda's Node runtime, through the start
 * wrapper its bundle carries, `lib/definitions/lambda-node.ts`), and one that cannot start fails
 * every invocation while CloudFormation reports success. A request with a made-up token reaches
 * the authorizer without any credential: started, it looks the token up in its table and refuses
 * it (403); not started, the gateway answers 500. It is a canary of what the functions share (the
 * wrapper, the bundling, the runtime), through the authorizer's own cold start: a module of
 * another function that throws at import is for `npm run smoke`. The gateway answers 403 by
 * itself only if its default endpoint is disabled, which this stack never does.
 */
import { generateToken } from '../../lambda/tokens/token';

/** One attempt's outcome: the status, or why no answer came. */
export type StartProbe = (url: string) => Promise<{ status: number } | { error: string }>;

/**
 * A token no store holds, new for each check and shaped as a real one, so the authorizer reads its
 * table to refuse it, and no denial the gateway cached (300 s, keyed by the header) answers for it.
 */
export function madeUpToken(): string {
  return generateToken().token;
}

/**
 * The probe over real HTTP: GET with a made-up token, 10 s at most. A failure is told by its
 * code only (`ECONNREFUSED`, `ENOTFOUND`, `TimeoutError`): never the host.
 */
export const httpProbe: StartProbe = async (url) => {
  try {
    const response = await fetch(url, {
      headers: { authorization: `Bearer ${madeUpToken()}` },
      signal: AbortSignal.timeout(10_000),
    });
    await response.arrayBuffer();
    return { status: response.status };
  } catch (error) {
    const { cause, name } = error as Error & { cause?: { code?: string } };
    return { error: cause?.code ?? name };
  }
};

/** `ApiUrl` from `cdk deploy --outputs-file`'s JSON: one stack's outputs, by output name. */
export function apiUrlFromOutputs(json: string): string {
  let outputs: unknown;
  try {
    outputs = JSON.parse(json);
  } catch {
    throw new Error('the outputs file is not JSON (cdk deploy --outputs-file writes it)');
  }
  const urls = Object.values((outputs ?? {}) as Record<string, Record<string, unknown>>)
    .map((stack) => stack?.ApiUrl)
    .filter((url): url is string => typeof url === 'string');
  if (urls.length !== 1) {
    throw new Error(`the outputs file names ${urls.length} ApiUrl outputs; expected one stack's`);
  }
  return urls[0]!;
}

/** The verdict: `ok` and one line saying what was seen. */
export interface StartVerdict {
  readonly ok: boolean;
  readonly line: string;
}

/**
 * Asks `GET <ApiUrl>plants/1` with the made-up token up to `attempts` times, `pauseMs` apart
 * while the answer is a 5xx or none: a 403 passes; anything else fails, saying what came.
 */
export async function checkStart(
  apiUrl: string,
  { probe = httpProbe, attempts = 3, pauseMs = 5_000 } = {},
): Promise<StartVerdict> {
  const url = new URL('plants/1', apiUrl.endsWith('/') ? apiUrl : `${apiUrl}/`).href;
  let seen = '';
  for (let attempt = 1; attempt <= attempts; attempt += 1) {
    const result = await probe(url);
    if ('status' in result && result.status === 403) {
      return {
        ok: true,
        line: 'The functions start: the authorizer refused a made-up token (403), as it must.',
      };
    }
    seen = 'status' in result ? `HTTP ${result.status}` : `no answer (${result.error})`;
    if ('status' in result && result.status < 500) break;
    if (attempt < attempts) await new Promise((resolve) => setTimeout(resolve, pauseMs));
  }
  return {
    ok: false,
    line: `The authorizer did not refuse a made-up token with 403: ${seen}. A function that cannot start fails every invocation; see its log group's INIT lines (and the start wrapper, docs/decisions/0011-a-start-wrapper-for-the-functions.md).`,
  };
}
