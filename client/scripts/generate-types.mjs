// Writes src/schema.ts, the client's types, from the repository's openapi.json with
// openapi-typescript, and the list of NewPlant's members (what createPlant sends, so a member
// added to the document is sent with no edit to the client); `--check` writes nothing and fails when the file differs (npm test runs it).
// One change to the generator's defaults: an int64 is a `bigint`, which is what the client
// returns and accepts, instead of a `number`, which cannot hold one.
import { readFileSync, writeFileSync } from 'node:fs';
import { isSafeNumber, parse } from 'lossless-json';
import openapiTS, { astToString } from 'openapi-typescript';
import ts from 'typescript';

const DOCUMENT = new URL('../../openapi.json', import.meta.url);
const OUTPUT = new URL('../src/schema.ts', import.meta.url);
const BANNER = `/**
 * The Plant Store API as TypeScript types, generated from openapi.json by openapi-typescript
 * (int64 as bigint), and the members of NewPlant. Do not edit: \`npm run generate -w @plant-store/client\` rewrites this file.
 */
`;

const BIGINT = ts.factory.createKeywordTypeNode(ts.SyntaxKind.BigIntKeyword);
// Read without rounding, so that an example such as 9007199254740993 keeps its digits in the
// comments: openapi-typescript reads with JSON.parse, and its bundler cannot take a bigint, so a
// number a float64 cannot hold is passed as its digits (only comments show such values).
const document = parse(readFileSync(DOCUMENT, 'utf8'), null, (digits) =>
  isSafeNumber(digits) ? Number(digits) : digits,
);
const ast = await openapiTS(document, {
  transform: (schema) => (schema.format === 'int64' ? BIGINT : undefined),
});
const newPlantMembers = Object.keys(document.components.schemas.NewPlant.properties);
const MEMBERS = `
/** The members of NewPlant, in the document's order: what \`createPlant\` sends. */
export const NEW_PLANT_MEMBERS = ${JSON.stringify(newPlantMembers)} as const satisfies readonly (keyof components['schemas']['NewPlant'])[];
`;
const text = BANNER + astToString(ast) + MEMBERS;

if (process.argv.includes('--check')) {
  let committed = '';
  try {
    committed = readFileSync(OUTPUT, 'utf8');
  } catch {
    // A missing file differs like any other.
  }
  if (committed !== text) {
    process.stderr.write(
      'client/src/schema.ts is not what openapi.json generates: run npm run generate (or npm run generate -w @plant-store/client)\n',
    );
    process.exit(1);
  }
} else {
  writeFileSync(OUTPUT, text);
}
