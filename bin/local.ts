/** `npm start`: the service on this machine. See README "Run it". */
import { devTokenFile, optionsFromEnvironment, startLocal } from '../lib/local/runtime';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
const log = (line: string) => process.stdout.write(`${line}\n`);

async function main(): Promise<void> {
  const started = performance.now();
  const options = optionsFromEnvironment(process.env, process.argv.slice(2), log);
  const service = await startLocal(options);
  const ms = (performance.now() - started).toFixed(0);
  log(`Plant Store is listening on ${service.url} (ready in ${ms} ms)`);
  log(
    `  engine:    http://127.0.0.1:${service.dbPort} ${options.memory ? '(in memory)' : `(data in ${options.dataDir})`}`,
  );
  // Never the token itself: it would stay in scrollback and CI logs.
  const file = devTokenFile(options.dataDir);
  const quoted = `'${file.replaceAll("'", `'\\''`)}'`;
  log(
    options.devToken === undefined
      ? `  dev token: in ${file} (0600)`
      : '  dev token: from PLANT_STORE_DEV_TOKEN (not printed)',
  );
  const bearer = options.devToken === undefined ? `$(cat ${quoted})` : '$PLANT_STORE_DEV_TOKEN';
  log(
    `  try:       curl -i -X POST ${service.url}/plants -H "Authorization: Bearer ${bearer}" -H 'Content-Type: application/json' -d '{"id":1,"name":"Monstera","tag":"aroid"}'`,
  );
  let closing = false;
  const stop = (signal: string) => {
    if (closing) return;
    closing = true;
    log(`${signal}: finishing requests in flight and stopping`);
    service.close().then(
      () => process.exit(0),
      (error) => {
        log(`stop failed: ${String(error)}`);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
}

main().catch((error: unknown) => {
  process.stderr.write(`start failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
