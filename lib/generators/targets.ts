/**
 * Every file `npm run generate` writes, in one list, each with the code that makes its text.
 * Markdown pages are not listed: their generated blocks are found by name (`blocks.ts`).
 */
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { PROJECT_ROOT } from '../definitions/bundling';
import { FUNCTION_NAMES } from '../definitions/functions';
import { cliReference } from './docs/cli';
import { httpApiReference } from './docs/http-api';
import { settingsReference } from './docs/settings';
import { prettierLayout, type GeneratedFile } from './generate';
import { buildDocument, documentText } from './openapi/document';
import { routeEvent } from './workspace/events';
import { launchConfigurations } from './workspace/launch';
import { jsonFileText } from './workspace/write';

/** openapi.json's text, made once per run: the client's types are made from it. */
let openapi: string | undefined;
const openapiText = () => (openapi ??= documentText(buildDocument()));

/** The client's type generator, an ES module of the client package (`schemaText`). */
const CLIENT_TYPES = join(PROJECT_ROOT, 'client', 'scripts', 'generate-types.mjs');

/** A file's JSON text as Prettier leaves it. */
const json = (path: string, value: () => unknown) => () =>
  jsonFileText(join(PROJECT_ROOT, path), value());

/** A page's markdown as Prettier lays it out. */
const page = (path: string, markdown: () => string) => ({
  path,
  text: () => prettierLayout(PROJECT_ROOT)(path, markdown()),
});

export const GENERATED_FILES: readonly GeneratedFile[] = [
  { path: 'openapi.json', text: async () => openapiText() },
  {
    path: 'client/src/schema.ts',
    text: async () => {
      const { schemaText } = (await import(pathToFileURL(CLIENT_TYPES).href)) as {
        schemaText: (document: string) => Promise<string>;
      };
      return schemaText(openapiText());
    },
  },
  { path: '.vscode/launch.json', text: json('.vscode/launch.json', launchConfigurations) },
  // An API function's event, written when it has none: a committed one may be tuned by hand.
  ...FUNCTION_NAMES.flatMap((name) => {
    const event = routeEvent(name);
    const path = `events/${name}.json`;
    return event === undefined ? [] : [{ path, text: json(path, () => event), keepExisting: true }];
  }),
  page('docs/reference/http-api.md', () => httpApiReference(buildDocument())),
  page('docs/reference/cli.md', cliReference),
  page('docs/reference/settings.md', settingsReference),
];
