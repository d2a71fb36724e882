/** `npm run smoke -- --url <ApiUrl>`, token in PLANT_STORE_TOKEN: see `lib/operator/smoke.ts`. */
import { parseCommandLine, UsageError } from '../lib/cli/args';
import { runCli } from '../lib/cli/run';
import { localApiTarget, readDevToken } from '../lib/npm-start/find';
import { formatSmoke, runSmoke, smokePassed, SMOKE_HELP } from '../lib/operator/smoke';

runCli('smoke', async (argv, io) => {
  const { values, help } = parseCommandLine(argv, {
    url: { type: 'string' },
    token: { type: 'string' },
  });
  if (help) {
    io.out(SMOKE_HELP);
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
