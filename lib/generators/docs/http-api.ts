/**
 * docs/reference/http-api.md: the OpenAPI document (`buildDocument()`, the text of
 * openapi.json) as markdown: the overview, each operation (parameters, body, answers with their
 * headers), each webhook, and each schema. The document is the reference; this page only lays
 * it out, so it says nothing the document does not.
 */
import type { OpenApiDocument } from '../openapi/document';
import { anchor } from './cli';
import {
  cell,
  limitsOf,
  plainText,
  refName,
  schemaTable,
  typeOf,
  type JsonSchema,
} from './schema-table';

interface Parameter {
  readonly name: string;
  readonly in: string;
  readonly required?: boolean;
  readonly description?: string;
  readonly schema: JsonSchema;
}
interface Content {
  readonly [mediaType: string]: { readonly schema?: JsonSchema };
}
interface Answer {
  readonly $ref?: string;
  readonly description?: string;
  readonly headers?: Readonly<
    Record<string, { readonly description?: string; readonly schema: JsonSchema }>
  >;
  readonly content?: Content;
}
interface Operation {
  readonly operationId?: string;
  readonly summary?: string;
  readonly description?: string;
  readonly security?: readonly Record<string, unknown>[];
  readonly parameters?: readonly Parameter[];
  readonly requestBody?: {
    readonly description?: string;
    readonly required?: boolean;
    readonly content: Content;
  };
  readonly responses: Readonly<Record<string, Answer>>;
}
type Paths = Readonly<Record<string, Readonly<Record<string, Operation>>>>;
interface Document {
  readonly info: { readonly title: string; readonly version: string; readonly description: string };
  readonly servers: readonly { readonly url: string; readonly description: string }[];
  readonly paths: Paths;
  readonly webhooks: Paths;
  readonly components: {
    readonly schemas: Readonly<Record<string, JsonSchema>>;
    readonly responses: Readonly<Record<string, Answer>>;
    readonly securitySchemes: Readonly<Record<string, { readonly description?: string }>>;
  };
}

/** A schema's name as a link to its section, or its type in words. */
const schemaLink = (schema: JsonSchema | undefined): string =>
  schema === undefined
    ? '—'
    : schema.$ref !== undefined
      ? `[\`${refName(schema.$ref)}\`](#${anchor(refName(schema.$ref))})`
      : typeOf(schema);

/** Several paragraphs as one (a list item, a table cell). */
const oneParagraph = (text = ''): string => cell(text.replace(/\n\n+/g, ' '));

/**
 * The first sentence of a description, for a row of a list or a table: the page stays short,
 * and the whole text is in openapi.json and at `/docs`.
 */
export function firstSentence(text = ''): string {
  const paragraph = oneParagraph(text.split(/\n\n/)[0]);
  return /^.*?[.!?](?= [A-Z])/.exec(paragraph)?.[0] ?? paragraph;
}

/** Each media type of a body and its schema. */
const bodies = (content: Content | undefined): string =>
  Object.entries(content ?? {})
    .map(([type, { schema }]) => `${schemaLink(schema)} (\`${type}\`)`)
    .join(', ') || 'no body';

function parameters(list: readonly Parameter[] | undefined): string[] {
  if (!list?.length) return [];
  return [
    '**Parameters**',
    '',
    '| Name | In | Type | Required | Limits | Description |',
    '| --- | --- | --- | --- | --- | --- |',
    ...list.map(
      (p) =>
        `| \`${p.name}\` | ${p.in} | ${typeOf(p.schema)} | ${p.required ? 'yes' : 'no'} | ${limitsOf(p.schema)} | ${firstSentence(p.description)} |`,
    ),
    '',
  ];
}

function answers(operation: Operation, responses: Document['components']['responses']): string[] {
  return [
    '**Answers**',
    '',
    ...Object.entries(operation.responses).flatMap(([status, given]) => {
      const answer = given.$ref !== undefined ? responses[refName(given.$ref)]! : given;
      const headers = Object.entries(answer.headers ?? {}).map(
        ([name, header]) => `  - \`${name}\` header: ${firstSentence(header.description)}`,
      );
      return [
        `- **${status}**, ${bodies(answer.content)}: ${firstSentence(answer.description)}`,
        ...headers,
      ];
    }),
    '',
  ];
}

/**
 * The operations of `paths` under headings of `level`. What an earlier operation of the page
 * already showed word for word (a paragraph, the parameters, the answers) is named, not repeated:
 * the webhooks share their headers, signature and schedule.
 */
function operations(
  paths: Paths,
  document: Document,
  level: string,
  shown: Map<string, string>,
): string[] {
  const once = (heading: string, what: string, lines: string[]): string[] => {
    const text = lines.join('\n');
    const first = shown.get(text);
    if (first === undefined) {
      shown.set(text, heading);
      return lines;
    }
    return [`${what}: as [${first}](#${anchor(first)}).`, ''];
  };
  return Object.entries(paths).flatMap(([path, methods]) =>
    Object.entries(methods).flatMap(([method, operation]) => {
      const heading = `${method.toUpperCase()} ${path}`;
      const paragraphs = (operation.description ?? '').split(/\n\n+/);
      const repeated = paragraphs.filter((paragraph) => shown.has(paragraph));
      const firstShown = repeated.length > 0 ? shown.get(repeated[0]!) : undefined;
      for (const paragraph of paragraphs) if (!shown.has(paragraph)) shown.set(paragraph, heading);
      return [
        `${level} ${heading}`,
        '',
        `**${operation.summary ?? operation.operationId}** (\`${operation.operationId}\`)${operation.security?.length === 0 ? ', no token' : ''}`,
        '',
        ...paragraphs
          .filter((paragraph) => !repeated.includes(paragraph))
          .flatMap((paragraph) => [plainText(paragraph), '']),
        ...(firstShown === undefined
          ? []
          : [`Otherwise as [${firstShown}](#${anchor(firstShown)}).`, '']),
        ...once(heading, '**Parameters**', parameters(operation.parameters)),
        ...(operation.requestBody
          ? [
              `**Body** (${operation.requestBody.required ? 'required' : 'optional'}): ${bodies(operation.requestBody.content)}. ${oneParagraph(operation.requestBody.description)}`,
              '',
            ]
          : []),
        ...once(heading, '**Answers**', answers(operation, document.components.responses)),
      ];
    }),
  );
}

/** The page's markdown, from the OpenAPI document. */
export function httpApiReference(built: OpenApiDocument): string {
  const document = built as unknown as Document;
  const { schemas, securitySchemes } = document.components;
  const shown = new Map<string, string>();
  const index = (paths: Paths) =>
    Object.entries(paths).flatMap(([path, methods]) =>
      Object.entries(methods).map(
        ([method, operation]) =>
          `| [${method.toUpperCase()} ${path}](#${anchor(`${method} ${path}`)}) | ${operation.summary ?? ''} |`,
      ),
    );
  return [
    '# HTTP API reference',
    '',
    `${document.info.title} ${document.info.version}, laid out from [openapi.json](../../openapi.json) (OpenAPI 3.1),`,
    'which `npm start` serves at `/openapi.json` with a browsable copy at `/docs`. Generated by',
    '`npm run generate`: do not edit.',
    '',
    plainText(document.info.description),
    '',
    '**Servers**',
    '',
    ...document.servers.map((server) => `- \`${server.url}\`: ${server.description}`),
    '',
    '**Authentication**',
    '',
    ...Object.entries(securitySchemes).map(
      ([name, scheme]) => `- \`${name}\`: ${oneParagraph(scheme.description)}`,
    ),
    '',
    '## Operations',
    '',
    '| Operation | Summary |',
    '| --- | --- |',
    ...index(document.paths),
    '',
    ...operations(document.paths, document, '###', shown),
    '## Webhooks',
    '',
    'What Plant Store sends to a subscriber (`npm run webhook -- add`).',
    '',
    ...operations(document.webhooks, document, '###', shown),
    '## Schemas',
    '',
    ...Object.entries(schemas).flatMap(([name, schema]) => [
      `### ${name}`,
      '',
      plainText(schema.description ?? ''),
      '',
      ...(schema.properties ? [schemaTable(schema), ''] : [`${typeOf(schema)}`, '']),
    ]),
  ].join('\n');
}
