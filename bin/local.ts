/** `npm start`: the service on this machine. See README "Run it". */
import { optionsFromEnvironment, startLocal } from '../lib/local/runtime';

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
  log(`  dev token: ${service.devToken}`);
  log(`  docs:      ${service.url}/docs (the API reference; try it with the dev token)`);
  log(
    `  try:       curl -i -X POST ${service.url}/plants -H 'Authorization: Bearer ${service.devToken}' -H 'Content-Type: application/json' -d '{"id":1,"name":"Monstera","tag":"aroid"}'`,
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
