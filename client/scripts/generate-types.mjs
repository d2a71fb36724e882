// src/schema.ts, the client's types, from the repository's openapi.json with openapi-typescript,
// and the list of NewPlant's members (what createPlant sends, so a member added to the document
// is sent with no edit to the client). `schemaText(documentText)` is what the repository's
// `npm run generate` writes (and `--check` compares) from the document it generates; run as a
// script, this file writes src/schema.ts from the committed openapi.json.
// One change to the generator's defaults: an int64 is a `bigint`, which is what the client
// returns and accepts, instead of a `number`, which cannot hold one.
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { isSafeNumber, parse } from 'lossless-json';
import openapiTS, { astToString } from 'openapi-typescript';
import ts from 'typescript';

const DOCUMENT = new URL('../../openapi.json', import.meta.url);
const OUTPUT = new URL('../src/schema.ts', import.meta.url);
const BANNER = `/**
 * The Plant Store API as TypeScript types, generated from openapi.json by openapi-typescript
 * (int64 as bigint), and the members of NewPlant. Do not edit: \`npm run generate\` rewrites this file.
 */
`;

const BIGINT = ts.factory.createKeywordTypeNode(ts.SyntaxKind.BigIntKeyword);

/** The text of src/schema.ts for the OpenAPI document `documentText`. */
export async function schemaText(documentText) {
  // Read without rounding, so that an example such as 9007199254740993 keeps its digits in the
  // comments: openapi-typescript reads with JSON.parse, and its bundler cannot take a bigint, so a
  // number a float64 cannot hold is passed as its digits (only comments show such values).
  const document = parse(documentText, null, (digits) =>
    isSafeNumber(digits) ? Number(digits) : digits,
  );
  const ast = await openapiTS(document, {
    transform: (schema) => (schema.format === 'int64' ? BIGINT : undefined),
  });
  const newPlantMembers = Object.keys(document.components.schemas.NewPlant.properties);
  const members = `
/** The members of NewPlant, in the document's order: what \`createPlant\` sends. */
export const NEW_PLANT_MEMBERS = ${JSON.stringify(newPlantMembers)} as const satisfies readonly (keyof components['schemas']['NewPlant'])[];
`;
  return BANNER + astToString(ast) + members;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  writeFileSync(OUTPUT, await schemaText(readFileSync(DOCUMENT, 'utf8')));
}
