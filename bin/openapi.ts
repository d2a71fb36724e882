/** `npm run openapi`: writes `openapi.json` from the schemas, `lib/definitions/api.ts` and the operations. */
import { writeFileSync } from 'node:fs';
import { relative } from 'node:path';
import { parseCommandLine } from '../lib/cli/args';
import { runCli } from '../lib/cli/run';
import { OPENAPI_FILE, buildDocument, documentText } from '../lib/generators/openapi/document';

const OPENAPI_HELP = `Usage: npm run openapi

Writes openapi.json (the API reference that npm start serves at /docs) from the request
schemas, the routes in lib/definitions/api.ts and the operations' answers. Commit it with the change.

Options:
  --help   this text
`;

runCli('npm run openapi', async (argv, io) => {
  const { help } = parseCommandLine(argv, {});
  if (help) {
    process.stdout.write(OPENAPI_HELP);
    return 0;
  }
  writeFileSync(OPENAPI_FILE, documentText(buildDocument()));
  io.out(`wrote ${relative(process.cwd(), OPENAPI_FILE) || OPENAPI_FILE}`);
  return 0;
});
