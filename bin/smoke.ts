/** `npm run smoke -- --url <ApiUrl>`, token in PLANT_STORE_TOKEN: see `lib/operator/smoke.ts`. */
import { parseCommandLine, UsageError } from '../lib/cli/args';
import { runCli } from '../lib/cli/run';
import { findingNpmStart, localApiTarget, readDevToken } from '../lib/npm-start/find';
import { formatSmoke, runSmoke, smokePassed, SMOKE_ID_RANGE } from '../lib/operator/smoke';

const USAGE = `Usage: PLANT_STORE_TOKEN=<token> npm run smoke -- --url <ApiUrl>

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
                     up); without one and without --url, npm start's dev token (the file
                     dev-token in PLANT_STORE_DATA_DIR, default .plant-store)

A token the service refuses (unknown, expired, revoked, or without plants:write) stops the check
at the first step: "token refused", and why.

Exit code: 0 when every step passed or was skipped, 1 when one failed, 2 for a usage mistake.`;

runCli('smoke', async (argv, io) => {
  const { values, help } = parseCommandLine(argv, {
    url: { type: 'string' },
    token: { type: 'string' },
  });
  if (help) {
    io.out(USAGE);
    return 0;
  }
  // Without --url: the running npm start, as the other CLIs find it, and its dev token by default.
  const local = values.url === undefined;
  const url = values.url ?? localApiTarget(io.env).url;
  // The URL first: a token is worth looking for only once we know where it will be sent.
  try {
    const parsed = new URL(url);
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new Error();
  } catch {
    throw new UsageError(`--url must be an http(s) URL like the stack output ApiUrl, got ${url}`);
  }
  const token =
    values.token ??
    (io.env.PLANT_STORE_TOKEN || undefined) ??
    (local ? readDevToken(io.env) : undefined);
  if (!token) throw new UsageError('no token: set PLANT_STORE_TOKEN');
  const steps = await runSmoke({ url, token });
  io.out(formatSmoke(steps));
  return smokePassed(steps) ? 0 : 1;
});
