/** `npm run smoke -- --url <ApiUrl> --token <token>`: see `lib/tools/smoke.ts`. */
import { parseArgs } from 'node:util';
import { formatSmoke, runSmoke, smokePassed, SMOKE_ID_RANGE } from '../lib/tools/smoke';

const USAGE = `Usage: PLANT_STORE_TOKEN=<token> npm run smoke -- --url <ApiUrl>

Checks a deployment (or npm start) with a short, safe sequence: create a plant, retry it (200),
conflict (409), invalid body (400), no token (401), unknown token (403), wrong content type
(415), then read back (GET /plants/{id}) and delete what it created where those routes exist.
The id is random, from ${SMOKE_ID_RANGE.min} to ${SMOKE_ID_RANGE.max}.

  --url <url>      the API's base URL: the stack output ApiUrl, or http://127.0.0.1:3000
  --token <token>  the token, instead of PLANT_STORE_TOKEN; avoid it: a command line is shown
                   by npm and ps, and kept in shell history
  --help           this text

  PLANT_STORE_TOKEN  a token with plants:write (plants:read and plants:delete to read and clean
                     up); locally: PLANT_STORE_TOKEN=$(cat .plant-store/dev-token)

Exit code: 0 when every step passed or was skipped, 1 when one failed, 2 for a usage mistake.`;

function usageError(message: string): never {
  process.stderr.write(`smoke: ${message} (npm run smoke -- --help)\n`);
  process.exit(2);
}

let values: { url?: string; token?: string; help?: boolean };
try {
  ({ values } = parseArgs({
    options: {
      url: { type: 'string' },
      token: { type: 'string' },
      help: { type: 'boolean' },
    },
    strict: true,
    allowPositionals: false,
  }));
} catch (error) {
  usageError((error as Error).message.split('\n')[0]!.replace(/\. To specify.*$/, ''));
}
if (values.help) {
  process.stdout.write(`${USAGE}\n`);
  process.exit(0);
}
if (!values.url) usageError('--url is required');
const token = values.token ?? process.env.PLANT_STORE_TOKEN;
if (!token) usageError('no token: set PLANT_STORE_TOKEN');
try {
  const url = new URL(values.url);
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error();
} catch {
  usageError(`--url must be an http(s) URL, got ${values.url}`);
}

void runSmoke({ url: values.url, token }).then((steps) => {
  process.stdout.write(`${formatSmoke(steps)}\n`);
  process.exitCode = smokePassed(steps) ? 0 : 1;
});
