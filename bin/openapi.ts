/** `npm run openapi`: writes `openapi.json` from the schemas, `lib/definitions/api.ts` and the operations. */
import { writeFileSync } from 'node:fs';
import { relative } from 'node:path';
import { OPENAPI_FILE, buildDocument, documentText } from '../lib/tools/openapi/document';

try {
  writeFileSync(OPENAPI_FILE, documentText(buildDocument()));
  process.stdout.write(`wrote ${relative(process.cwd(), OPENAPI_FILE) || OPENAPI_FILE}\n`);
} catch (error) {
  process.stderr.write(
    `openapi failed: ${error instanceof Error ? error.message : String(error)}\n`,
  );
  process.exit(1);
}
