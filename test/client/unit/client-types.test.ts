/**
 * The client's types are what openapi-typescript generates from the committed openapi.json: a
 * change to the document that is not regenerated into `client/src/schema.ts` fails here.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';

const SCRIPT = join(__dirname, '../../../client/scripts/generate-types.mjs');

it('client/src/schema.ts is exactly what openapi.json generates', async () => {
  const result = await new Promise<{ code: number; stderr: string }>((resolve) => {
    execFile(process.execPath, [SCRIPT, '--check'], (error, _stdout, stderr) =>
      resolve({ code: error ? Number(error.code ?? 1) : 0, stderr }),
    );
  });
  expect(result.stderr).toBe('');
  expect(result.code).toBe(0);
});
