/** `npm run openapi`: writes `openapi.json` from the schemas, `lib/definitions/api.ts` and the operations. */
import { writeFileSync } from 'node:fs';
import { relative } from 'node:path';
import { parseCommandLine } from '../lib/cli/args';
import { runCli } from '../lib/cli/run';
import {
  OPENAPI_FILE,
  OPENAPI_HELP,
  buildDocument,
  documentText,
} from '../lib/generators/openapi/document';

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
