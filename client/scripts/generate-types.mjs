// src/schema.ts, the client's types, from the repository's openapi.json with openapi-typescript,
// the list of NewPlant's members (what createPlant sends, so a member added to the document is
// sent with no edit to the client), and where each answer and webhook body holds an int64 (what
// the client reads as a bigint, by the schema's `format: int64`, never by a member's name).
// `schemaText(documentText)` is what the repository's `npm run generate` writes (and `--check`
// compares) from the document it generates; run as a script, this file writes src/schema.ts from
// the committed openapi.json (`--document <file>` and `--output <file>` name others: tests).
// One change to the generator's defaults: an int64 is a `bigint`, which is what the client
// returns and accepts, instead of a `number`, which cannot hold one.
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { isSafeNumber, parse } from 'lossless-json';
import openapiTS, { astToString } from 'openapi-typescript';
import ts from 'typescript';
import { int64Answers, int64Webhooks } from './int64-locations.mjs';

const option = (name) => {
  const at = process.argv.indexOf(name);
  return at === -1 ? undefined : process.argv[at + 1];
};
const DOCUMENT = option('--document') ?? new URL('../../openapi.json', import.meta.url);
const OUTPUT = option('--output') ?? new URL('../src/schema.ts', import.meta.url);
const BANNER = `/**
 * The Plant Store API as TypeScript types, generated from openapi.json by openapi-typescript
 * (int64 as bigint), the members of NewPlant and where answers hold an int64. Do not edit: \`npm run generate\` rewrites this file.
 */
import type { Int64Answers, Int64Locations } from './exact-json.js';

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

/**
 * Where each answer holds an int64 (\`format: int64\`), by path, method and status: the client
 * reads a number there as a \`bigint\` with every digit, and every other number as a \`number\`.
 */
export const INT64_ANSWERS: Int64Answers = ${JSON.stringify(int64Answers(document))};

/** Where a webhook body (any event's) holds an int64: what \`parseExact\` reads by default. */
export const INT64_WEBHOOKS: Int64Locations = ${JSON.stringify(int64Webhooks(document))};
`;
  return BANNER + astToString(ast) + members;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  writeFileSync(OUTPUT, await schemaText(readFileSync(DOCUMENT, 'utf8')));
}
