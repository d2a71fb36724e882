/**
 * A plant's item beyond its members, and the expressions that change it. Every attribute here
 * is optional, so that each item stored before it existed is read as it is (no table rewrite):
 * no `version` is the first version, and a create writes none, so its item is what 1.1.0 wrote.
 */
import { randomBytes } from 'node:crypto';
import { storedValue } from './field-types';
import {
  PLANT_FIELD_NAMES,
  PLANT_FIELDS,
  plantMembers,
  TEXT_FIELD_NAMES,
  type PlantFieldName,
  type PlantMembers,
  type PlantValue,
} from './schemas';
import { PLANTS_TABLE } from '../aws/tables';

/** The attributes a change or a delete writes, by role. */
export const PLANT_ATTRIBUTES = {
  /**
   * The number of changes plus one (a number; absent: 1). A plant created again over its
   * tombstone continues from the tombstone's, so that no version of an id repeats.
   */
  version: 'version',
  /** The version a plant created again began at (absent: 1): what its newPlant event carries. */
  firstVersion: 'firstVersion',
  /** When and by whom (token id) the last change was made. */
  updatedAt: 'updatedAt',
  updatedBy: 'updatedBy',
  /** When a delete marked the plant deleted: the item is its tombstone from then on. */
  deletedAt: 'deletedAt',
  /** When DynamoDB's TTL removes a tombstone (epoch seconds): the table's TTL attribute. */
  purgeAt: PLANTS_TABLE.timeToLiveAttribute,
  /**
   * A random id of the change or delete that wrote the item last (`withWriteId`). A write is sent
   * once (`sentOnce`); when it failed in a way that leaves open whether DynamoDB made it (its
   * answer lost), the item bearing its id says it was made, and what it wrote.
   */
  writeId: 'writeId',
  /**
   * The `writeId` of the tombstone a plant was created over (its delete's). A delete whose answer
   * was lost may find the plant created over its tombstone since: finding its own id here, it
   * knows it deleted the plant before this one (204). Only the last tombstone's is kept: after two
   * deletes and creates of the id, the delete's answer is 503.
   */
  previousWriteId: 'previousWriteId',
  /**
   * A random id of the create that began the plant's life, kept by its changes and its
   * tombstone: a create whose answer was lost, finding its id on the item it reads, knows the
   * plant (or its tombstone) is its own, and that it was made.
   */
  createId: 'createId',
  /**
   * The `createId` of the tombstone a plant was created over (the life before), kept as
   * `createId` is: a create whose answer was lost knows it was made also after its plant was
   * deleted and the id created again. Only one life back: after two deletes and creates of the
   * id within the moment a lost answer takes, the create is made again.
   */
  previousCreateId: 'previousCreateId',
} as const;

/**
 * The string members that key an index (the tag). DynamoDB refuses a write that gives an index
 * key an empty string, so an empty one is stored as no attribute and its marker (`emptyMarker`)
 * set to true, and read back as "": a plant with an empty tag is kept as ever and is in no tag list.
 */
export const INDEX_KEY_MEMBERS: readonly PlantFieldName[] = TEXT_FIELD_NAMES.filter((field) =>
  (PLANTS_TABLE.indexes ?? []).some((index) => index.partitionKey.name === field),
);

/** The attribute that says an index key member is the empty string. */
export function emptyMarker(field: PlantFieldName): string {
  return `${field}IsEmpty`;
}

/** A plant's members as an item stores them: an empty index key member as its marker. */
export function storedMembers<T extends PlantMembers>(source: T): Record<string, unknown> {
  const members: Record<string, unknown> = { ...plantMembers(source) };
  for (const field of INDEX_KEY_MEMBERS) {
    if (members[field] !== '') continue;
    delete members[field];
    members[emptyMarker(field)] = true;
  }
  return members;
}

/**
 * An item's plant members as the plant has them, besides its id: each read by its field's type (a
 * DynamoDB number as the number it denotes; a marked member is "").
 */
export function readMembers(item: Record<string, unknown>): PlantMembers {
  const members: Record<string, unknown> = {};
  for (const field of PLANT_FIELD_NAMES) {
    const value = storedValue(PLANT_FIELDS[field], item[field]);
    if (value !== undefined) members[field] = value;
  }
  for (const field of INDEX_KEY_MEMBERS) {
    if (item[emptyMarker(field)] === true && members[field] === undefined) members[field] = '';
  }
  return members;
}

/** A change of a plant's members: a value sets the member, `null` removes it, absent keeps it. */
export type PlantChange = { readonly [F in PlantFieldName]?: PlantValue<F> | null };

/** An UpdateExpression with its placeholders (`:one` is always 1, set by the table). */
export interface ItemUpdate {
  readonly update: string;
  readonly names: Readonly<Record<string, string>>;
  readonly values: Readonly<Record<string, unknown>>;
  /** A condition the write also needs, besides the plant's presence and `If-Match`. */
  readonly condition?: string;
}

/**
 * Whether DynamoDB refused a write because the stored item holds an empty string in an index key
 * (an item written before the index existed: 1.1.0 stored an empty tag as it came). The write
 * is then made again with `withEmptyKeysMarked`.
 */
export function isEmptyIndexKeyRefusal(error: unknown): boolean {
  return (
    error instanceof Error &&
    error.name === 'ValidationException' &&
    error.message.includes('secondary index key') &&
    error.message.includes('empty string')
  );
}

/**
 * `expression` that also stores each index key member it does not name as its marker (removes the
 * empty attribute, sets the marker), on the condition that the member is still empty — so that a
 * concurrent change that gave it a value is never overwritten (the write then fails its
 * condition and answers a 412 naming the current version). Both our expressions begin with SET
 * and end with their REMOVE clause, if any.
 */
export function withEmptyKeysMarked(expression: ItemUpdate): ItemUpdate {
  const named = new Set(Object.values(expression.names));
  const members = INDEX_KEY_MEMBERS.filter((field) => !named.has(field));
  const names: Record<string, string> = { ...expression.names };
  const sets: string[] = [];
  const removes: string[] = [];
  const conditions: string[] = [];
  members.forEach((field, n) => {
    names[`#k${n}`] = field;
    names[`#ke${n}`] = emptyMarker(field);
    sets.push(`#ke${n} = :marked`);
    removes.push(`#k${n}`);
    conditions.push(`#k${n} = :empty`);
  });
  if (members.length === 0) return expression;
  const withSets = expression.update.replace(/^SET /, `SET ${sets.join(', ')}, `);
  const update = withSets.includes(' REMOVE ')
    ? `${withSets}, ${removes.join(', ')}`
    : `${withSets} REMOVE ${removes.join(', ')}`;
  const condition = [expression.condition, ...conditions].filter(Boolean).join(' AND ');
  return {
    update,
    names,
    values: { ...expression.values, ':marked': true, ':empty': '' },
    condition,
  };
}

/** A new write's id: 12 random bytes, base64url (16 characters). */
export function newWriteId(): string {
  return randomBytes(12).toString('base64url');
}

/**
 * `expression` that also records `writeId` as the item's `writeId` (both our expressions begin
 * with SET), as `:writeId`. A tombstone keeps it; a create replaces the whole item, the
 * tombstone's `writeId` kept as `previousWriteId` when it was created over one.
 */
export function withWriteId(expression: ItemUpdate, writeId: string): ItemUpdate {
  return {
    ...expression,
    update: expression.update.replace(/^SET /, 'SET #writeId = :writeId, '),
    names: { ...expression.names, '#writeId': PLANT_ATTRIBUTES.writeId },
    values: { ...expression.values, ':writeId': writeId },
  };
}

/** Raises the version by one, counting an item without one as the first. */
export const VERSION_RAISE = '#version = if_not_exists(#version, :one) + :one';

/**
 * The update of a change: each of the schema's members that `change` names set or removed,
 * the version raised, and who changed it when.
 */
export function changeExpression(
  change: PlantChange,
  audit: { readonly at: string; readonly by: string },
): ItemUpdate {
  const set = [VERSION_RAISE, '#updatedAt = :updatedAt', '#updatedBy = :updatedBy'];
  const remove: string[] = [];
  const names: Record<string, string> = {
    '#updatedAt': PLANT_ATTRIBUTES.updatedAt,
    '#updatedBy': PLANT_ATTRIBUTES.updatedBy,
  };
  const values: Record<string, unknown> = { ':updatedAt': audit.at, ':updatedBy': audit.by };
  PLANT_FIELD_NAMES.forEach((field, n) => {
    const value = change[field];
    if (value === undefined) return;
    names[`#m${n}`] = field;
    if (value === null && PLANT_FIELDS[field].required) {
      throw new Error(`${field} is required: it cannot be removed`);
    }
    const marked = INDEX_KEY_MEMBERS.includes(field);
    if (marked) names[`#e${n}`] = emptyMarker(field);
    if (value === null || (marked && value === '')) remove.push(`#m${n}`);
    else set.push(`#m${n} = :m${n}`);
    if (value !== null && !(marked && value === '')) values[`:m${n}`] = value;
    if (!marked) return;
    if (value === '') {
      set.push(`#e${n} = :marked`);
      values[':marked'] = true;
    } else remove.push(`#e${n}`);
  });
  const update = `SET ${set.join(', ')}${remove.length ? ` REMOVE ${remove.join(', ')}` : ''}`;
  return { update, names, values };
}

/**
 * How long a tombstone written before tombstones were kept for good is kept: DynamoDB's TTL removes
 * it this long after its delete (its `purgeAt`). Longer than a queued delivery can wait for its
 * subscriber's `enable` (the delivery queue keeps a message 14 days, its dead-letter queue 14
 * more) plus a week for an operator's `webhook replay --since`.
 */
export const TOMBSTONE_DAYS = 35;

/**
 * The attributes a tombstone keeps: the key, the version (so that a plant created again continues
 * it and no ETag of the id repeats), `deletedAt`, `createdAt` (the incarnation a
 * `plantDeleted` event names), the delete's `writeId`, and the `createId` and `previousCreateId`
 * of the lives it ends. Every other attribute is removed.
 */
const TOMBSTONE_REMOVES: readonly string[] = [
  ...PLANT_FIELD_NAMES,
  ...INDEX_KEY_MEMBERS.map(emptyMarker),
  PLANT_ATTRIBUTES.firstVersion,
  PLANT_ATTRIBUTES.previousWriteId,
  PLANT_ATTRIBUTES.updatedAt,
  PLANT_ATTRIBUTES.updatedBy,
  'createdBy',
];

/**
 * The update that makes a plant its tombstone: marked deleted at `at` (version + 1), stripped to
 * what versions and the `plantDeleted` event need (`TOMBSTONE_REMOVES`), out of every index, and
 * kept for good (no `purgeAt`: TTL never removes it, so its version is never forgotten). Every
 * read treats a marked item as absent; a create may take its id.
 */
export function tombstoneExpression(at: string): ItemUpdate {
  const names: Record<string, string> = { '#deletedAt': PLANT_ATTRIBUTES.deletedAt };
  const removes = TOMBSTONE_REMOVES.map((attribute, n) => {
    names[`#t${n}`] = attribute;
    return `#t${n}`;
  });
  return {
    update: `SET #deletedAt = :at, ${VERSION_RAISE} REMOVE ${removes.join(', ')}`,
    names,
    values: { ':at': at },
  };
}
