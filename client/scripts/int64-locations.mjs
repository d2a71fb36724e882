// Where a JSON Schema of an OpenAPI document puts an int64 (`format: int64`): a tree of the
// members, array items and other members (`additionalProperties`) that lead to one, through
// `$ref`, `allOf`, `anyOf` and `oneOf`. The client reads a number there exactly (a bigint).

/** The union of two trees (either may be undefined). */
function merge(a, b) {
  if (!a) return b;
  if (!b) return a;
  const out = { ...a };
  if (b.int64) out.int64 = true;
  if (b.items) out.items = merge(a.items, b.items);
  if (b.others) out.others = merge(a.others, b.others);
  if (b.members) {
    out.members = { ...a.members };
    for (const [name, node] of Object.entries(b.members)) {
      out.members[name] = merge(out.members[name], node);
    }
  }
  return out;
}

function resolve(document, ref) {
  if (!ref.startsWith('#/')) throw new Error(`only local references are followed: ${ref}`);
  return ref
    .slice(2)
    .split('/')
    .map((part) => part.replaceAll('~1', '/').replaceAll('~0', '~'))
    .reduce((node, part) => node?.[part], document);
}

/** The int64 locations of `schema`, or undefined when it holds none. */
export function locations(schema, document, following = []) {
  if (typeof schema !== 'object' || schema === null) return undefined;
  let node;
  if (typeof schema.$ref === 'string') {
    // A schema that refers to itself through its members holds what it holds once.
    if (following.includes(schema.$ref)) return undefined;
    node = merge(
      node,
      locations(resolve(document, schema.$ref), document, [...following, schema.$ref]),
    );
  }
  if (schema.format === 'int64') node = merge(node, { int64: true });
  for (const key of ['allOf', 'anyOf', 'oneOf']) {
    for (const sub of schema[key] ?? []) node = merge(node, locations(sub, document, following));
  }
  for (const [name, member] of Object.entries(schema.properties ?? {})) {
    const found = locations(member, document, following);
    if (found) node = merge(node, { members: { [name]: found } });
  }
  const items = [schema.items, ...(schema.prefixItems ?? [])]
    .map((item) => locations(item, document, following))
    .reduce(merge, undefined);
  if (items) node = merge(node, { items });
  const others = locations(schema.additionalProperties, document, following);
  if (others) node = merge(node, { others });
  return node;
}

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace'];

/** Every answer's int64 locations: path → method → status → tree (answers with none left out). */
export function int64Answers(document) {
  const answers = {};
  for (const [path, item] of Object.entries(document.paths ?? {})) {
    for (const method of METHODS) {
      for (const [status, response] of Object.entries(item[method]?.responses ?? {})) {
        const resolved = response.$ref ? resolve(document, response.$ref) : response;
        const schema = resolved?.content?.['application/json']?.schema;
        const found = locations(schema, document);
        if (!found) continue;
        answers[path] ??= {};
        answers[path][method] ??= {};
        answers[path][method][status] = found;
      }
    }
  }
  return answers;
}

/** The int64 locations of every webhook's body, as one tree. */
export function int64Webhooks(document) {
  let found;
  for (const item of Object.values(document.webhooks ?? {})) {
    for (const method of METHODS) {
      const schema = item[method]?.requestBody?.content?.['application/json']?.schema;
      found = merge(found, locations(schema, document));
    }
  }
  return found ?? {};
}
