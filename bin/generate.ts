/**
 * `npm run generate`: rewrites every committed file derived from the definitions, so that a new
 * operation (its folder and its registry entry) needs no other edit: openapi.json, the client's
 * types (client/src/schema.ts, from openapi.json), .vscode/launch.json and the events of API
 * functions that have none.
 */
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { parseCommandLine } from '../lib/cli/args';
import { runCli } from '../lib/cli/run';
import { PROJECT_ROOT } from '../lib/definitions/bundling';
import { OPENAPI_FILE, buildDocument, documentText } from '../lib/generators/openapi/document';
import { writeWorkspace } from '../lib/generators/workspace/write';

const GENERATE_HELP = `Usage: npm run generate

Rewrites the committed files derived from the definitions (lib/definitions/, each function
folder's openapi.ts): openapi.json (as npm run openapi), the client's types
(client/src/schema.ts), .vscode/launch.json, and events/<function>.json for an API function
that has none (an existing event is kept). Commit them with the change.

Options:
  --help   this text
`;

/** The client's type generator (an ES module of the client package). */
const CLIENT_TYPES = join(PROJECT_ROOT, 'client', 'scripts', 'generate-types.mjs');

runCli('npm run generate', async (argv, io) => {
  if (parseCommandLine(argv, {}).help) {
    process.stdout.write(GENERATE_HELP);
    return 0;
  }
  const wrote = (file: string) => io.out(`wrote ${relative(PROJECT_ROOT, file)}`);
  writeFileSync(OPENAPI_FILE, documentText(buildDocument()));
  wrote(OPENAPI_FILE);
  const client = spawnSync(process.execPath, [CLIENT_TYPES], { stdio: 'inherit' });
  if (client.status !== 0) {
    io.err('npm run generate: the client types could not be generated (see above)');
    return 1;
  }
  wrote(join(PROJECT_ROOT, 'client', 'src', 'schema.ts'));
  for (const file of await writeWorkspace()) wrote(file);
  return 0;
});
