/**
 * The conditions of a write to one plant, each beside its twin that judges a stored item in code:
 * the request's preconditions (`If-Match`, `If-None-Match`: RFC 9110 section 13.2.2) and, for a
 * change, that it changes something. DynamoDB decides atomically; when it refuses, the twins say
 * why from the item the refusal returned.
 */
import { PLANTS_TABLE } from '../aws/tables';
import {
  emptyMarker,
  INDEX_KEY_MEMBERS,
  PLANT_ATTRIBUTES,
  readMembers,
  type ItemUpdate,
  type PlantChange,
} from './item';
import { versionOf } from './decode';
import { PLANT_FIELD_NAMES } from './schemas';
import { FIRST_VERSION, names, type Validators } from './versions';

/** What a write's request names: `If-Match` (strong comparison), `If-None-Match` (weak). */
export interface Preconditions {
  readonly ifMatch?: Validators;
  readonly ifNoneMatch?: Validators;
}

/** A ConditionExpression with its placeholders. */
export interface Condition {
  readonly expression: string;
  readonly names: Readonly<Record<string, string>>;
  readonly values: Readonly<Record<string, unknown>>;
}

const KEY_NAMES = {
  '#key': PLANTS_TABLE.partitionKey.name,
  '#deletedAt': PLANT_ATTRIBUTES.deletedAt,
  '#version': PLANT_ATTRIBUTES.version,
};
/** A term that never holds on an item that is there, so that a refused write still reads it. */
const NEVER = 'attribute_not_exists(#key)';

/** `#version` is one of `versions` (an item without one is the first), or `undefined` for none. */
function atOneOf(versions: readonly number[], prefix: string) {
  const values = Object.fromEntries(versions.map((version, n) => [`:${prefix}${n}`, version]));
  const terms = Object.keys(values).map((placeholder) => `#version = ${placeholder}`);
  if (versions.includes(FIRST_VERSION)) terms.push('attribute_not_exists(#version)');
  return terms.length === 0 ? undefined : { term: `(${terms.join(' OR ')})`, values };
}

/**
 * The condition of every change and delete: the plant is there, not deleted, at one of the
 * versions `If-Match` names (none of ours: never) and at none that `If-None-Match` names (`*`:
 * never, since the plant is there).
 */
export function writeCondition({ ifMatch, ifNoneMatch }: Preconditions): Condition {
  const terms = ['attribute_exists(#key) AND attribute_not_exists(#deletedAt)'];
  let values: Record<string, unknown> = {};
  if (ifMatch && !ifMatch.any) {
    const match = atOneOf(ifMatch.versions, 'v');
    terms.push(match?.term ?? NEVER);
    values = { ...values, ...match?.values };
  }
  if (ifNoneMatch?.any) terms.push(NEVER);
  else if (ifNoneMatch) {
    const match = atOneOf(ifNoneMatch.versions, 'nv');
    if (match) terms.push(`NOT ${match.term}`);
    values = { ...values, ...match?.values };
  }
  return { expression: terms.join(' AND '), names: KEY_NAMES, values };
}

/** Whether a plant at `version` meets the preconditions (the twin of `writeCondition`). */
export function preconditionsHold(
  { ifMatch, ifNoneMatch }: Preconditions,
  version: number,
): boolean {
  return (!ifMatch || names(ifMatch, version)) && !(ifNoneMatch && names(ifNoneMatch, version));
}

/**
 * The condition that `change` changes something: some member it names is stored otherwise (an
 * empty index key member counts as "" in either of its stored forms). A change that names no
 * member never writes. So a change that would change nothing makes no version and no event.
 */
export function changesSomething(change: PlantChange): Condition {
  const names: Record<string, string> = { '#key': KEY_NAMES['#key'] };
  const values: Record<string, unknown> = {};
  const equal: string[] = [];
  PLANT_FIELD_NAMES.forEach((field, n) => {
    const value = change[field];
    if (value === undefined) return;
    names[`#c${n}`] = field;
    // An empty index key member is stored as its marker: read either form (only as used).
    const marked = INDEX_KEY_MEMBERS.includes(field) && (value === null || value === '');
    if (marked) names[`#ce${n}`] = emptyMarker(field);
    if (value === null) {
      equal.push(`attribute_not_exists(#c${n})`);
      if (marked) equal.push(`attribute_not_exists(#ce${n})`);
      return;
    }
    values[`:c${n}`] = value;
    if (marked) {
      values[':cmarked'] = true;
      equal.push(`(#c${n} = :c${n} OR (attribute_not_exists(#c${n}) AND #ce${n} = :cmarked))`);
    } else equal.push(`#c${n} = :c${n}`);
  });
  if (equal.length === 0) return { expression: NEVER, names, values };
  // DynamoDB refuses redundant parentheses: one term that has its own is not wrapped again.
  const all =
    equal.length === 1 && equal[0]!.startsWith('(') ? equal[0] : `(${equal.join(' AND ')})`;
  return { expression: `NOT ${all}`, names, values };
}

/** Whether `change` leaves the stored item's members as they are (the twin of `changesSomething`). */
export function leavesUnchanged(change: PlantChange, item: Record<string, unknown>): boolean {
  const members = readMembers(item);
  return PLANT_FIELD_NAMES.every((field) => {
    const value = change[field];
    if (value === undefined) return true;
    return value === null ? members[field] === undefined : members[field] === value;
  });
}

/**
 * What a create puts over `tombstone`, a deleted plant's item: the version one more than the
 * tombstone's (so that no ETag of the id repeats), recorded as `firstVersion`, a `createdAt`
 * after the tombstone's incarnation's, the delete's `writeId` as `previousWriteId` and the
 * tombstone's `createId` as `previousCreateId`, on the condition that the item is still that
 * tombstone.
 */
export function createOverTombstone(
  tombstone: Record<string, unknown>,
  createdAt: string,
): Condition & { readonly attributes: Readonly<Record<string, unknown>> } {
  const version = versionOf(tombstone);
  const previous = tombstone.createdAt;
  const after = typeof previous === 'string' ? Date.parse(previous) + 1 : 0;
  const stored = tombstone[PLANT_ATTRIBUTES.version] !== undefined;
  const deletedBy = tombstone[PLANT_ATTRIBUTES.writeId];
  const createdBefore = tombstone[PLANT_ATTRIBUTES.createId];
  return {
    attributes: {
      [PLANT_ATTRIBUTES.version]: version + 1,
      [PLANT_ATTRIBUTES.firstVersion]: version + 1,
      createdAt: new Date(Math.max(Date.parse(createdAt), after)).toISOString(),
      ...(typeof deletedBy === 'string' && { [PLANT_ATTRIBUTES.previousWriteId]: deletedBy }),
      ...(typeof createdBefore === 'string' && {
        [PLANT_ATTRIBUTES.previousCreateId]: createdBefore,
      }),
    },
    expression: `attribute_exists(#deletedAt) AND ${stored ? '#version = :tombstone' : 'attribute_not_exists(#version)'}`,
    names: { '#deletedAt': KEY_NAMES['#deletedAt'], '#version': KEY_NAMES['#version'] },
    values: stored ? { ':tombstone': version } : {},
  };
}

/** `expression` that also needs `condition` to hold. */
export function withCondition(
  expression: ItemUpdate,
  condition: Condition,
): ItemUpdate & { readonly condition: string } {
  return {
    ...expression,
    names: { ...expression.names, ...condition.names },
    values: { ...expression.values, ...condition.values },
    condition: [expression.condition, condition.expression].filter(Boolean).join(' AND '),
  };
}
