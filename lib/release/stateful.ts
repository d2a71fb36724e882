/**
 * What an upgrade must never do to the resources that hold data (CONTRACT "Upgrades lose
 * nothing"): a table, key or queue of the released template gone, of another type, or changed
 * in a property CloudFormation cannot update in place; a table's stream ended (its view type
 * changed, or the stream removed) with records its consumer had not read; a deploy that changes
 * a table's global secondary indexes in a way it cannot (more than one created or deleted at
 * once, or one changed in place); and, where the release retained tables
 * and keys (prod), a template that no longer retains them. One comparison, read by the test
 * against the kept releases and by `npm run release -- check` against a deployed stack.
 */

/** A resource of a CloudFormation template, as far as this comparison reads it. */
export interface TemplateResource {
  readonly Type: string;
  readonly Properties?: Readonly<Record<string, unknown>>;
  readonly DeletionPolicy?: string;
  readonly UpdateReplacePolicy?: string;
}

/** A synthesized or deployed template. */
export interface Template {
  readonly Resources: Readonly<Record<string, TemplateResource>>;
}

/**
 * The resource types that hold data, and for each the properties whose change CloudFormation
 * answers by replacing the resource (a new, empty one) or, for a KMS key, by failing the update
 * (KeySpec, KeyUsage, Origin and MultiRegion are immutable), each with the value CloudFormation
 * assumes when the property is absent. From the CloudFormation resource specification
 * (`causesReplacement`) and the template reference for AWS::KMS::Key.
 */
export const STATEFUL_TYPES: Readonly<Record<string, Readonly<Record<string, unknown>>>> = {
  'AWS::DynamoDB::Table': {
    TableName: undefined,
    KeySchema: undefined,
    ImportSourceSpecification: undefined,
  },
  'AWS::KMS::Key': {
    KeySpec: 'SYMMETRIC_DEFAULT',
    KeyUsage: 'ENCRYPT_DECRYPT',
    Origin: 'AWS_KMS',
    MultiRegion: false,
  },
  'AWS::SQS::Queue': { QueueName: undefined, FifoQueue: false },
};

/** The types whose data must outlive the stack where the release retained them. */
export const RETAINED_TYPES: readonly string[] = ['AWS::DynamoDB::Table', 'AWS::KMS::Key'];

/** One way the new template would lose data, naming the resource and the property. */
export interface Finding {
  readonly logicalId: string;
  readonly type: string;
  /** The property, attribute or policy concerned; absent when the resource is gone. */
  readonly property?: string;
  readonly message: string;
}

/** A property's value, with the default CloudFormation assumes when it is absent. */
function valueOf(resource: TemplateResource, property: string): unknown {
  const value = resource.Properties?.[property];
  return value === undefined ? STATEFUL_TYPES[resource.Type]?.[property] : value;
}

/** The table's key attributes' types (`{ id: 'N' }`), which the key schema alone does not say. */
function keyTypes(table: TemplateResource): Record<string, unknown> {
  const schema = (table.Properties?.KeySchema ?? []) as { AttributeName: string }[];
  const definitions = (table.Properties?.AttributeDefinitions ?? []) as {
    AttributeName: string;
    AttributeType: string;
  }[];
  return Object.fromEntries(
    schema.map(({ AttributeName }) => [
      AttributeName,
      definitions.find((d) => d.AttributeName === AttributeName)?.AttributeType,
    ]),
  );
}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
const shown = (value: unknown) => (value === undefined ? 'absent' : JSON.stringify(value));

/**
 * Every way `current` would lose what `released` holds: for each table, key and queue of
 * `released`, whether `current` still has it under the same logical id and type, with the same
 * replacement-requiring properties and key types; and, where `released` retained a table or key
 * (`DeletionPolicy` and `UpdateReplacePolicy` Retain), whether `current` still retains it.
 */
export function compareStateful(released: Template, current: Template): Finding[] {
  const findings: Finding[] = [];
  for (const [logicalId, old] of Object.entries(released.Resources)) {
    const rules = STATEFUL_TYPES[old.Type];
    if (!rules) continue;
    const now = current.Resources[logicalId];
    const type = old.Type;
    if (!now) {
      const moved = Object.entries(current.Resources).find(
        ([, r]) => r.Type === type && same(identity(r), identity(old)) && identity(old) !== '{}',
      );
      findings.push({
        logicalId,
        type,
        message: `${type} ${logicalId} is gone${moved ? ` (its logical id became ${moved[0]}: CloudFormation would create a new, empty one)` : ': CloudFormation would delete it'}`,
      });
      continue;
    }
    if (now.Type !== type) {
      findings.push({
        logicalId,
        type,
        property: 'Type',
        message: `${logicalId} changed type from ${type} to ${now.Type}: CloudFormation would replace it`,
      });
      continue;
    }
    for (const property of Object.keys(rules)) {
      const before = valueOf(old, property);
      const after = valueOf(now, property);
      if (!same(before, after)) {
        findings.push({
          logicalId,
          type,
          property,
          message: `${type} ${logicalId}: ${property} changed from ${shown(before)} to ${shown(after)}, which ${type === 'AWS::KMS::Key' ? 'CloudFormation cannot update (the key is immutable)' : 'replaces it with a new, empty one'}`,
        });
      }
    }
    // Key types matter for the same key schema (a new schema is reported above).
    if (
      type === 'AWS::DynamoDB::Table' &&
      same(valueOf(old, 'KeySchema'), valueOf(now, 'KeySchema'))
    ) {
      const before = keyTypes(old);
      const after = keyTypes(now);
      for (const name of Object.keys(before)) {
        if (before[name] !== after[name]) {
          findings.push({
            logicalId,
            type,
            property: `AttributeDefinitions.${name}.AttributeType`,
            message: `${type} ${logicalId}: the key attribute ${name} changed type from ${shown(before[name])} to ${shown(after[name])}, which replaces the table with a new, empty one`,
          });
        }
      }
    }
    // A stream's view type cannot change in place: DynamoDB ends the stream and starts another
    // (a new ARN), and the records the old one held that no consumer had read are lost with
    // the mapping that read it. Removing the stream loses them the same way.
    if (type === 'AWS::DynamoDB::Table') {
      const before = streamViewType(old);
      const after = streamViewType(now);
      if (before !== undefined && before !== after) {
        findings.push({
          logicalId,
          type,
          property: 'StreamSpecification.StreamViewType',
          message: `${type} ${logicalId}: the stream's view type changed from ${shown(before)} to ${shown(after)}, which ends its stream: records not yet read by its consumer are lost`,
        });
      }
    }
    if (type === 'AWS::DynamoDB::Table') findings.push(...indexFindings(logicalId, old, now));
    if (RETAINED_TYPES.includes(type)) {
      for (const policy of ['DeletionPolicy', 'UpdateReplacePolicy'] as const) {
        if (old[policy] === 'Retain' && now[policy] !== 'Retain') {
          findings.push({
            logicalId,
            type,
            property: policy,
            message: `${type} ${logicalId}: ${policy} was Retain and is now ${now[policy] ?? 'absent (Delete)'}: deleting or replacing it would delete its data`,
          });
        }
      }
    }
  }
  return findings;
}

/** A global secondary index as a template writes it. */
interface TemplateIndex {
  readonly IndexName: string;
  readonly KeySchema?: unknown;
  readonly Projection?: unknown;
}

/** A table's global secondary indexes, by name. */
function indexesOf(table: TemplateResource): Map<string, TemplateIndex> {
  const indexes = (table.Properties?.GlobalSecondaryIndexes ?? []) as TemplateIndex[];
  return new Map(indexes.map((index) => [index.IndexName, index]));
}

/**
 * The global secondary indexes a deploy would create and delete on a table. Each is an in-place
 * update of the table (its items, key schema and stream stay), but CloudFormation and DynamoDB
 * create or delete at most one per table update.
 */
export function indexChanges(
  released: TemplateResource,
  current: TemplateResource,
): { readonly created: string[]; readonly deleted: string[] } {
  const before = indexesOf(released);
  const after = indexesOf(current);
  return {
    created: [...after.keys()].filter((name) => !before.has(name)),
    deleted: [...before.keys()].filter((name) => !after.has(name)),
  };
}

/**
 * What a deploy could not do to a table's indexes: create or delete more than one at once (the
 * update fails and rolls back), or change an index's key schema or projection in place
 * (CloudFormation refuses; an index is replaced by adding one under a new name, then deleting
 * the old one, one deploy each).
 */
function indexFindings(
  logicalId: string,
  released: TemplateResource,
  current: TemplateResource,
): Finding[] {
  const type = 'AWS::DynamoDB::Table';
  const { created, deleted } = indexChanges(released, current);
  const findings: Finding[] = [];
  if (created.length + deleted.length > 1) {
    findings.push({
      logicalId,
      type,
      property: 'GlobalSecondaryIndexes',
      message: `${type} ${logicalId}: one deploy would create ${shown(created)} and delete ${shown(deleted)}, but a table update creates or deletes at most one global secondary index: deploy them one at a time`,
    });
  }
  const after = indexesOf(current);
  for (const [name, before] of indexesOf(released)) {
    const now = after.get(name);
    if (!now) continue;
    for (const property of ['KeySchema', 'Projection'] as const) {
      if (!same(before[property], now[property])) {
        findings.push({
          logicalId,
          type,
          property: `GlobalSecondaryIndexes.${name}.${property}`,
          message: `${type} ${logicalId}: the index ${name}'s ${property} changed, which CloudFormation cannot update in place: add the new index under another name, then remove this one, one deploy each`,
        });
      }
    }
  }
  return findings;
}

/** A table's stream view type, or `undefined` when it has no stream. */
function streamViewType(table: TemplateResource): unknown {
  return (table.Properties?.StreamSpecification as { StreamViewType?: unknown } | undefined)
    ?.StreamViewType;
}

/** What names a stateful resource whatever its logical id: its replacement-requiring values. */
function identity(resource: TemplateResource): string {
  const rules = STATEFUL_TYPES[resource.Type] ?? {};
  return JSON.stringify(
    Object.fromEntries(
      Object.keys(rules)
        .map((property) => [property, resource.Properties?.[property]])
        .filter(([, value]) => value !== undefined),
    ),
  );
}

/**
 * Tables and keys of `template` that are not retained on delete and on replacement: for prod,
 * every one must be (a release's and a new one alike).
 */
export function unretained(template: Template): Finding[] {
  return Object.entries(template.Resources).flatMap(([logicalId, resource]) =>
    RETAINED_TYPES.includes(resource.Type)
      ? (['DeletionPolicy', 'UpdateReplacePolicy'] as const)
          .filter((policy) => resource[policy] !== 'Retain')
          .map((policy) => ({
            logicalId,
            type: resource.Type,
            property: policy,
            message: `${resource.Type} ${logicalId}: ${policy} is ${resource[policy] ?? 'absent (Delete)'}, not Retain`,
          }))
      : [],
  );
}
