/** `npm start`: the service on this machine. See README "Run it" and `npm start -- --help`. */
import { stop as stopEsbuild } from 'esbuild';
import { parseCommandLine } from '../lib/cli/args';
import { turnBatchedLines } from '../lib/cli/lines';
import { runCli } from '../lib/cli/run';
import { devTokenBanner } from '../lib/local/dev/dev-token';
import { PRIVATE_UMASK } from '../lib/local/process/private-dir';
import {
  START_HELP,
  START_OPTIONS,
  nonDefaultSettings,
  optionsFromEnvironment,
} from '../lib/local/process/options';
import { startLocal } from '../lib/local/runtime';
import { consoleUrlFile, startConsole } from '../lib/console/server';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
// The data directory is private (lib/local/process/private-dir.ts): so is all the process creates in it.
process.umask(PRIVATE_UMASK);
const log = turnBatchedLines(process.stdout);

runCli('npm start', async (argv) => {
  const started = performance.now();
  const { values, help } = parseCommandLine(argv, START_OPTIONS);
  if (help) {
    process.stdout.write(START_HELP);
    return 0;
  }
  const options = optionsFromEnvironment(process.env, values, log);
  // The console's port: a free one unless PLANT_STORE_CONSOLE_PORT names one (a fixed default
  // would make npm start fail wherever that port is taken).
  const consolePort = options.consolePort ?? 0;
  // Ctrl-C during the start: stop what has started rather than leave the lock and the engine.
  let interrupted = false;
  const early = () => (interrupted = true);
  process.on('SIGINT', early).on('SIGTERM', early);
  const service = await startLocal(options);
  const consolePage = await startConsole({
    invocations: service.invocations,
    dataDir: options.dataDir,
    dbPort: service.dbPort,
    port: consolePort,
    log,
  }).catch(async (error: unknown) => {
    await service.close();
    throw (error as NodeJS.ErrnoException).code === 'EADDRINUSE'
      ? new Error(
          `port ${consolePort} is in use; set PLANT_STORE_CONSOLE_PORT to a free port, or 0 to pick one`,
        )
      : error;
  });
  // The stop handlers go on before the early ones come off and before the banner, which scripts
  // wait for: no signal between them meets Node's default (exit, the lock left behind).
  let closing = false;
  const stop = (signal: string) => {
    if (closing) return;
    closing = true;
    log(`${signal}: finishing requests in flight and stopping`);
    Promise.all([consolePage.close(), service.close()]).then(
      () => process.exit(0),
      (error: unknown) => {
        process.stderr.write(`npm start: stop failed: ${String(error)}\n`);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.off('SIGINT', early).off('SIGTERM', early);
  // An outage drill: SIGUSR2 takes the engine down (functions answer 503) and brings it back.
  let engineDown = false;
  const toggleEngine = () => {
    engineDown = !engineDown;
    service.setEngineAvailable(!engineDown);
    log(
      engineDown
        ? 'SIGUSR2: the engine is down (connections reset; the functions answer 503); SIGUSR2 again brings it back'
        : 'SIGUSR2: the engine is back',
    );
  };
  if (process.platform !== 'win32') process.on('SIGUSR2', toggleEngine);
  // Without watch mode the bundles are built once: esbuild's service process (~100 MiB) is not
  // needed any more (esbuild would start a new one if it were called again).
  if (!options.watch) await stopEsbuild();
  const ms = (performance.now() - started).toFixed(0);
  log(`Plant Store is listening on ${service.url} (ready in ${ms} ms)`);
  log(
    `  engine:    http://127.0.0.1:${service.dbPort} ${options.memory ? '(in memory)' : `(data in ${options.dataDir})`}`,
  );
  log(`  docs:      ${service.url}/docs (the API reference: authorize with the dev token, try it)`);
  // The URL carries this run's key (as a Jupyter server's does): it is printed, and kept in the
  // private data directory for whoever lost this terminal.
  log(
    `  console:   ${consolePage.url} (invocations, their logs and IAM denials; the data; state; also in ${consoleUrlFile(options.dataDir)})`,
  );
  log(
    `  watching:  ${options.watch ? 'lambda/ and lib/definitions/api.ts (a saved change is served on the next request; --no-watch turns this off)' : 'off (--no-watch)'}`,
  );
  if (options.throttle) {
    const { rateLimit, burstLimit } = options.throttle;
    log(`  throttle:  ${rateLimit} requests/s, burst ${burstLimit} (429 past it)`);
  }
  for (const setting of nonDefaultSettings(options)) log(`  setting:   ${setting}`);
  for (const [name, port] of service.inspectPorts ?? []) {
    // Node's inspector has no authentication: whoever connects runs code as this user.
    log(
      `  inspector: ${name} on 127.0.0.1:${port} (http://127.0.0.1:${port}/json/list; no authentication: any local process or user can attach and run code as you)`,
    );
  }
  if (process.platform !== 'win32') {
    log(
      `  outage:    kill -USR2 ${process.pid} takes the engine down (503s to try a client's retries); again brings it back`,
    );
  }
  for (const line of devTokenBanner(options, service.url)) log(line);
  if (interrupted) stop('SIGINT');
});
