/**
 * What a client of the last release would notice in a new `openapi.json`: a removed operation,
 * webhook, response status or media type, and a schema that no longer accepts what the client
 * sends or no longer promises what it reads. Annotations (descriptions, examples, titles) and
 * additions a client can ignore (a new operation, status or optional member) are not breaking.
 */

/** A JSON Schema or OpenAPI object, as read from the document. */
type Json = Record<string, unknown>;

/**
 * Whose side a schema is on, seen from the client: `sent` (a request body or parameter: the new
 * schema must accept everything the old one did) or `read` (an answer, or a webhook body for its
 * receiver: the new schema must promise everything the old one did).
 */
type Direction = 'sent' | 'read';

const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace'];
/** Keywords that never change what is valid. */
const ANNOTATIONS = new Set([
  'description',
  'title',
  'examples',
  'example',
  '$comment',
  'deprecated',
]);
/** Bounds and whether raising them narrows the schema. */
const LOWER_BOUNDS = ['minimum', 'exclusiveMinimum', 'minLength', 'minItems', 'minProperties'];
const UPPER_BOUNDS = ['maximum', 'exclusiveMaximum', 'maxLength', 'maxItems', 'maxProperties'];

const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The changes of `now` from `old` that break a client of `old`, each one line naming where. */
export function breakingChanges(old: Json, now: Json): string[] {
  const out: string[] = [];
  const compare = new SchemaComparison(old, now, out);
  for (const section of ['paths', 'webhooks'] as const) {
    const oldItems = (old[section] ?? {}) as Record<string, Json>;
    const newItems = (now[section] ?? {}) as Record<string, Json>;
    for (const [name, oldItem] of Object.entries(oldItems)) {
      const newItem = newItems[name];
      for (const method of HTTP_METHODS) {
        const oldOp = oldItem[method] as Json | undefined;
        if (!oldOp) continue;
        const where = section === 'paths' ? `${method.toUpperCase()} ${name}` : `webhook ${name}`;
        const newOp = newItem?.[method] as Json | undefined;
        if (!newOp) {
          out.push(`${where}: removed`);
          continue;
        }
        // A webhook's body is what its receiver reads; its answers are what the receiver sends.
        const body: Direction = section === 'paths' ? 'sent' : 'read';
        const answers: Direction = section === 'paths' ? 'read' : 'sent';
        compareBody(compare, where, oldOp.requestBody, newOp.requestBody, body);
        compareParameters(compare, where, oldOp, newOp);
        const oldResponses = (oldOp.responses ?? {}) as Record<string, Json>;
        const newResponses = (newOp.responses ?? {}) as Record<string, Json>;
        for (const [status, oldResponse] of Object.entries(oldResponses)) {
          const newResponse = newResponses[status];
          if (!newResponse) {
            // A receiver's answer no longer listed is the service's concern, not the receiver's.
            if (answers === 'read') out.push(`${where}: removed response ${status}`);
            continue;
          }
          compareContent(
            compare,
            `${where} ${status}`,
            compare.resolve(oldResponse, 'old'),
            compare.resolve(newResponse, 'new'),
            answers,
          );
        }
      }
    }
  }
  return out;
}

function compareBody(
  compare: SchemaComparison,
  where: string,
  oldBody: unknown,
  newBody: unknown,
  direction: Direction,
) {
  if (!isObject(newBody) && !isObject(oldBody)) return;
  const o = isObject(oldBody) ? compare.resolve(oldBody, 'old') : undefined;
  const n = isObject(newBody) ? compare.resolve(newBody, 'new') : undefined;
  if (direction === 'sent' && n?.required === true && o?.required !== true) {
    compare.out.push(`${where}: the request body became required`);
  }
  if (o && n) compareContent(compare, `${where} body`, o, n, direction);
  else if (o && direction === 'read') compare.out.push(`${where}: the body was removed`);
}

function compareContent(
  compare: SchemaComparison,
  where: string,
  oldThing: Json,
  newThing: Json,
  direction: Direction,
) {
  const oldContent = (oldThing.content ?? {}) as Record<string, Json>;
  const newContent = (newThing.content ?? {}) as Record<string, Json>;
  for (const [type, oldMedia] of Object.entries(oldContent)) {
    const newMedia = newContent[type];
    if (!newMedia) {
      compare.out.push(`${where}: media type ${type} removed`);
      continue;
    }
    compare.schema(`${where} ${type}`, oldMedia.schema, newMedia.schema, direction);
  }
  const oldHeaders = (oldThing.headers ?? {}) as Record<string, Json>;
  const newHeaders = (newThing.headers ?? {}) as Record<string, Json>;
  for (const [name, oldHeader] of Object.entries(oldHeaders)) {
    const newHeader = newHeaders[name] ? compare.resolve(newHeaders[name], 'new') : undefined;
    if (!newHeader) {
      if (direction === 'read') compare.out.push(`${where}: header ${name} removed`);
      continue;
    }
    const o = compare.resolve(oldHeader, 'old');
    compare.schema(`${where} header ${name}`, o.schema, newHeader.schema, direction);
  }
}

function compareParameters(compare: SchemaComparison, where: string, oldOp: Json, newOp: Json) {
  const key = (p: Json) => `${String(p.in)}:${String(p.name)}`;
  const list = (op: Json, side: 'old' | 'new') =>
    new Map(
      ((op.parameters ?? []) as Json[]).map((p) => {
        const resolved = compare.resolve(p, side);
        return [key(resolved), resolved];
      }),
    );
  const oldParams = list(oldOp, 'old');
  const newParams = list(newOp, 'new');
  for (const [name, param] of newParams) {
    const before = oldParams.get(name);
    if (param.required === true && before?.required !== true) {
      compare.out.push(`${where}: parameter ${name} became required`);
    }
    if (before) compare.schema(`${where} parameter ${name}`, before.schema, param.schema, 'sent');
  }
}

/** Compares two schemas of two documents, resolving each side's local `$ref`s. */
class SchemaComparison {
  private readonly seen = new Set<string>();

  constructor(
    private readonly oldDoc: Json,
    private readonly newDoc: Json,
    readonly out: string[],
  ) {}

  /** Follows `$ref`s (`#/components/...`) within the document of `side`. */
  resolve(value: Json, side: 'old' | 'new'): Json {
    let current = value;
    for (let hops = 0; typeof current.$ref === 'string' && hops < 20; hops++) {
      const ref = current.$ref;
      let target: unknown = side === 'old' ? this.oldDoc : this.newDoc;
      for (const part of ref.replace(/^#\//, '').split('/')) {
        target = isObject(target)
          ? target[part.replaceAll('~1', '/').replaceAll('~0', '~')]
          : undefined;
      }
      if (!isObject(target)) throw new Error(`unresolved $ref ${ref} in the ${side} document`);
      current = {
        ...target,
        ...Object.fromEntries(Object.entries(current).filter(([k]) => k !== '$ref')),
      };
    }
    return current;
  }

  schema(where: string, oldRaw: unknown, newRaw: unknown, direction: Direction): void {
    if (!isObject(oldRaw)) return;
    if (!isObject(newRaw)) {
      this.out.push(`${where}: the schema was removed`);
      return;
    }
    const visit = `${where}|${JSON.stringify(oldRaw.$ref)}|${JSON.stringify(newRaw.$ref)}`;
    if (this.seen.has(visit)) return;
    this.seen.add(visit);
    const o = this.resolve(oldRaw, 'old');
    const n = this.resolve(newRaw, 'new');
    const narrowerIs = direction === 'sent' ? 'accepts less' : 'promises less';
    const types = (s: Json) =>
      s.type === undefined ? undefined : new Set([s.type].flat() as string[]);
    const [ot, nt] = [types(o), types(n)];
    if (ot && nt) {
      // Sent: every old type must still be accepted. Read: no new type may appear.
      const lost =
        direction === 'sent'
          ? [...ot].filter((t) => !nt.has(t))
          : [...nt].filter((t) => !ot.has(t));
      if (lost.length > 0)
        this.out.push(`${where}: type ${[...ot].join('|')} became ${[...nt].join('|')}`);
    } else if (!ot && nt && direction === 'sent') {
      this.out.push(`${where}: now restricted to type ${[...nt].join('|')}`);
    }
    if (Array.isArray(o.enum) || Array.isArray(n.enum)) {
      const oe = (o.enum ?? []) as unknown[];
      const ne = (n.enum ?? []) as unknown[];
      const has = (list: unknown[], v: unknown) =>
        list.some((x) => JSON.stringify(x) === JSON.stringify(v));
      if (direction === 'sent' && n.enum && (!o.enum || oe.some((v) => !has(ne, v)))) {
        this.out.push(
          `${where}: enum ${narrowerIs} (${JSON.stringify(oe)} → ${JSON.stringify(ne)})`,
        );
      }
      if (direction === 'read' && o.enum && (!n.enum || ne.some((v) => !has(oe, v)))) {
        this.out.push(
          `${where}: enum gained values (${JSON.stringify(oe)} → ${JSON.stringify(ne)})`,
        );
      }
    }
    for (const keyword of ['const', 'pattern', 'format', 'multipleOf']) {
      if (JSON.stringify(o[keyword]) !== JSON.stringify(n[keyword])) {
        const added = o[keyword] === undefined;
        // A new constraint narrows what is sent; a removed one widens what is read.
        if (direction === 'sent' ? !(n[keyword] === undefined) : !added) {
          this.out.push(
            `${where}: ${keyword} ${JSON.stringify(o[keyword])} → ${JSON.stringify(n[keyword])}`,
          );
        }
      }
    }
    for (const bound of [...LOWER_BOUNDS, ...UPPER_BOUNDS]) {
      const [ob, nb] = [o[bound] as number | undefined, n[bound] as number | undefined];
      if (ob === nb) continue;
      const raisesLower = LOWER_BOUNDS.includes(bound);
      // Narrower: a new bound, a lower bound raised or an upper bound lowered.
      const narrower =
        ob === undefined ? true : nb === undefined ? false : raisesLower ? nb > ob : nb < ob;
      if (narrower === (direction === 'sent')) {
        this.out.push(
          `${where}: ${bound} ${String(ob)} → ${String(nb)} (${direction === 'sent' ? narrowerIs : 'promises less'})`,
        );
      }
    }
    this.members(where, o, n, direction);
    if (isObject(o.items)) this.schema(`${where}[]`, o.items, n.items, direction);
    for (const keyword of ['oneOf', 'anyOf', 'allOf']) {
      const strip = (s: unknown) =>
        JSON.stringify(s, (k, v: unknown) => (ANNOTATIONS.has(k) ? undefined : v));
      if (strip(o[keyword]) !== strip(n[keyword])) {
        const [oa, na] = [(o[keyword] ?? []) as unknown[], (n[keyword] ?? []) as unknown[]];
        if (oa.length === na.length)
          oa.forEach((s, i) => this.schema(`${where} ${keyword}[${i}]`, s, na[i], direction));
        else this.out.push(`${where}: ${keyword} changed`);
      }
    }
  }

  private members(where: string, o: Json, n: Json, direction: Direction): void {
    const oldProps = (o.properties ?? {}) as Record<string, unknown>;
    const newProps = (n.properties ?? {}) as Record<string, unknown>;
    const oldRequired = new Set((o.required ?? []) as string[]);
    const newRequired = new Set((n.required ?? []) as string[]);
    for (const [name, oldSchema] of Object.entries(oldProps)) {
      if (!(name in newProps)) {
        if (direction === 'read' || n.additionalProperties === false) {
          this.out.push(`${where}: member ${name} removed`);
        }
        continue;
      }
      if (direction === 'read' && oldRequired.has(name) && !newRequired.has(name)) {
        this.out.push(`${where}: member ${name} is no longer always present`);
      }
      this.schema(`${where}.${name}`, oldSchema, newProps[name], direction);
    }
    if (direction === 'sent') {
      for (const name of newRequired) {
        if (!oldRequired.has(name)) this.out.push(`${where}: member ${name} became required`);
      }
      if (n.additionalProperties === false && o.additionalProperties !== false && isObject(o)) {
        this.out.push(`${where}: no longer accepts other members`);
      }
    }
  }
}
