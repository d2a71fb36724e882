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
  memberList,
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

/** Several paragraphs as one (a list item). */
const oneParagraph = (text = ''): string => cell(text.replace(/\n\n+/g, ' '));

/**
 * The first sentence of a description, for a row of a list or a table: the page stays short,
 * and the whole text is in openapi.json and at `/docs`.
 */
export function firstSentence(text = ''): string {
  const paragraph = oneParagraph(text.split(/\n\n/)[0]);
  return /^.*?[.!?](?= [A-Z])/.exec(paragraph)?.[0] ?? paragraph;
}

/** Each media type of a body and its schema (the media type only when it is not JSON). */
const bodies = (content: Content | undefined): string =>
  Object.entries(content ?? {})
    .map(([type, { schema }]) => schemaLink(schema) + (type === JSON_TYPE ? '' : ` (\`${type}\`)`))
    .join(' or ') || 'no body';
const JSON_TYPE = 'application/json';

/**
 * What an earlier operation showed word for word is named, not repeated: `shown` maps each
 * block's text to the heading that showed it first.
 */
type Shown = Map<string, string>;
const seen = (shown: Shown, text: string, heading: string): string | undefined => {
  const first = shown.get(text);
  if (first === undefined) shown.set(text, heading);
  return first;
};
const link = (heading: string): string => `[${heading}](#${anchor(heading)})`;

/** An operation's parameters, one line each; those shown before are named with where. */
function parameters(
  list: readonly Parameter[] | undefined,
  heading: string,
  shown: Shown,
): string[] {
  if (!list?.length) return [];
  const again = new Map<string, string[]>();
  const lines = list.flatMap((p) => {
    const limits = limitsOf(p.schema);
    const about = [p.in, typeOf(p.schema), p.required ? 'required' : 'optional'].join(', ');
    const line = `- \`${p.name}\` (${about}${limits === '—' ? '' : `; ${limits}`}): ${firstSentence(p.description)}`;
    const first = seen(shown, line, heading);
    if (first === undefined) return [line];
    again.set(first, [...(again.get(first) ?? []), `\`${p.name}\``]);
    return [];
  });
  for (const [first, names] of again) lines.push(`- ${names.join(', ')} as ${link(first)}`);
  return ['Parameters:', '', ...lines, ''];
}

/** The gateway's own answers' schema: an operation lists them by status only. */
const GATEWAY = '#/components/schemas/GatewayMessage';
/** The prefix of an answer either the function or the gateway may give: the schema says so. */
const EITHER = /^From the function \(Error\): /;

/**
 * An operation's answers as one table of status, body and meaning; the gateway's own in one row.
 * A header is named here and described once, under Headers.
 */
function answers(
  operation: Operation,
  responses: Document['components']['responses'],
  headers: Set<string>,
): string[] {
  const gateway: string[] = [];
  const rows = Object.entries(operation.responses).flatMap(([status, given]) => {
    const answer = given.$ref !== undefined ? responses[refName(given.$ref)]! : given;
    const schemas = Object.values(answer.content ?? {}).map(({ schema }) => schema?.$ref);
    if (schemas.length > 0 && schemas.every((ref) => ref === GATEWAY)) {
      gateway.push(status);
      return [];
    }
    const named = Object.entries(answer.headers ?? {}).map(([name, header]) => {
      const text = `\`${name}\`: ${oneParagraph(header.description)}`;
      headers.add(text);
      return `\`${name}\``;
    });
    const meaning = firstSentence((answer.description ?? '').replace(EITHER, ''));
    const also = named.length > 0 ? ` Header: ${named.join(', ')}.` : '';
    return [`| ${status} | ${bodies(answer.content)} | ${meaning}${also} |`];
  });
  if (gateway.length > 0) {
    rows.push(
      `| ${gateway.join(', ')} | [\`GatewayMessage\`](#gatewaymessage) | The gateway's own. |`,
    );
  }
  return ['| Status | Body | Meaning |', '| --- | --- | --- |', ...rows, ''];
}

/**
 * The operations of `paths` under headings of `level`: each one's summary and id, parameters,
 * body schema and answers. The descriptions are whole in openapi.json and at `/docs`.
 */
function operations(
  paths: Paths,
  document: Document,
  level: string,
  shown: Shown,
  headers: Set<string>,
): string[] {
  return Object.entries(paths).flatMap(([path, methods]) =>
    Object.entries(methods).flatMap(([method, operation]) => {
      const heading = `${method.toUpperCase()} ${path}`;
      const table = answers(operation, document.components.responses, headers);
      const first = seen(shown, table.join('\n'), heading);
      return [
        `${level} ${heading}`,
        '',
        `${operation.summary ?? operation.operationId} (\`${operation.operationId}\`${operation.security?.length === 0 ? ', no token' : ''}).`,
        '',
        ...parameters(operation.parameters, heading, shown),
        ...(operation.requestBody
          ? [
              `Body (${operation.requestBody.required ? 'required' : 'optional'}): ${bodies(operation.requestBody.content)}.`,
              '',
            ]
          : []),
        ...(first === undefined ? table : [`Answers as ${link(first)}.`, '']),
      ];
    }),
  );
}

/** A schema's members, one line each; one an earlier schema showed word for word is named. */
function members(schema: JsonSchema, name: string, shown: Shown): string[] {
  const again = new Map<string, string[]>();
  const lines = memberList(schema, firstSentence).flatMap((line) => {
    const first = seen(shown, line, name);
    if (first === undefined) return [line];
    again.set(first, [...(again.get(first) ?? []), /^- (`[^`]+`)/.exec(line)![1]!]);
    return [];
  });
  return [
    ...lines,
    ...[...again].map(([first, names]) => `- ${names.join(', ')} as ${link(first)}`),
  ];
}

/** The page's markdown, from the OpenAPI document. */
export function httpApiReference(built: OpenApiDocument): string {
  const document = built as unknown as Document;
  const { schemas, securitySchemes } = document.components;
  const shown: Shown = new Map();
  const headers = new Set<string>();
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
    `Servers: ${document.servers.map((server) => `\`${server.url}\``).join(', ')}. Authentication: ${Object.keys(
      securitySchemes,
    )
      .map((name) => `\`${name}\``)
      .join(', ')}.`,
    '',
    '## Operations',
    '',
    '| Operation | Summary |',
    '| --- | --- |',
    ...index(document.paths),
    '',
    ...operations(document.paths, document, '###', shown, headers),
    '## Webhooks',
    '',
    'What Plant Store sends to a subscriber (`npm run webhook -- add`).',
    '',
    ...operations(document.webhooks, document, '###', shown, headers),
    '## Headers',
    '',
    ...[...headers].map((text) => `- ${text}`),
    '',
    '## Schemas',
    '',
    ...Object.entries(schemas).flatMap(([name, schema]) => [
      `### ${name}`,
      '',
      firstSentence(schema.description),
      '',
      ...(schema.properties ? [...members(schema, name, shown), ''] : [typeOf(schema), '']),
    ]),
  ].join('\n');
}
