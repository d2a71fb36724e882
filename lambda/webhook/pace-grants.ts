/**
 * The counts of a subscriber's grid granted in each epoch, as they are kept on its item
 * (`pu<epoch>`, with the epoch's spacing in `ps<epoch>`, fixed by its first grant), and the one
 * conditional update that grants a sandbox slots of up to a second of them. Epochs gone by leave
 * the item, and `paceFloor` keeps the latest epoch that left: no grant is made at or below it,
 * so a grant that reaches the table late (a slow request, a clock behind) can never count an
 * epoch again from zero and hand out its slots twice.
 */
import { SUBSCRIPTIONS_TABLE } from '../aws/tables';
import { numberOf } from './attempt-records';
import type { EpochSlots, Pace } from './rate-limit';

const KEY = SUBSCRIPTIONS_TABLE.partitionKey.name;

/** What a sandbox asks of the grid: `n` slots of each epoch's `slots`, at the pace it saw. */
export interface GrantAsk {
  readonly epochs: readonly { readonly slots: EpochSlots; readonly n: number }[];
  /** The rate and slowdown it computed the spacing from: granted only if they still hold. */
  readonly seen: Pace;
}

/** The counts granted in each epoch still kept on the item, by epoch. */
export type Granted = ReadonlyMap<number, { readonly used: number; readonly spacing: number }>;

/**
 * The update that adds `ask`'s counts to their epochs, if they fit and the pace it was asked at
 * still holds, and the subscriber is there and enabled; the epochs in `drop` leave the item.
 */
export function grantUpdate({ epochs, seen }: GrantAsk, drop: readonly number[]) {
  const names: Record<string, string> = { '#key': KEY };
  const values: Record<string, unknown> = {
    ':lowest': Math.min(...epochs.map(({ slots }) => slots.epoch)),
  };
  const set: string[] = [];
  const add: string[] = [];
  const conditions = [
    'attribute_exists(#key)',
    'attribute_not_exists(disabledAt)',
    '(attribute_not_exists(paceFloor) OR paceFloor < :lowest)',
  ];
  if (drop.length > 0) {
    // Never lowered: an epoch that left stays left.
    values[':floor'] = Math.max(...drop);
    set.push('paceFloor = :floor');
    conditions.push('(attribute_not_exists(paceFloor) OR paceFloor <= :floor)');
  }
  conditions.push(seen.rate === undefined ? 'attribute_not_exists(rate)' : 'rate = :rate');
  if (seen.rate !== undefined) values[':rate'] = seen.rate;
  if (seen.slowdown) {
    conditions.push('slowdown = :slowdown');
    values[':slowdown'] = seen.slowdown;
  } else {
    conditions.push('(attribute_not_exists(slowdown) OR slowdown = :zero)');
    values[':zero'] = 0;
  }
  epochs.forEach(({ slots, n }, i) => {
    names[`#u${i}`] = usedName(slots.epoch);
    names[`#s${i}`] = spacingName(slots.epoch);
    values[`:n${i}`] = n;
    values[`:limit${i}`] = slots.count - n;
    values[`:s${i}`] = slots.spacing;
    set.push(`#s${i} = if_not_exists(#s${i}, :s${i})`);
    add.push(`#u${i} :n${i}`);
    conditions.push(
      `(attribute_not_exists(#u${i}) OR #u${i} <= :limit${i})`,
      `(attribute_not_exists(#s${i}) OR #s${i} = :s${i})`,
    );
  });
  drop.forEach((epoch, i) => {
    names[`#du${i}`] = usedName(epoch);
    names[`#ds${i}`] = spacingName(epoch);
  });
  const remove = drop.map((_, i) => `#du${i}, #ds${i}`).join(', ');
  return {
    UpdateExpression: `SET ${set.join(', ')} ADD ${add.join(', ')}${remove ? ` REMOVE ${remove}` : ''}`,
    ConditionExpression: conditions.join(' AND '),
    ExpressionAttributeNames: names,
    ExpressionAttributeValues: values,
  };
}

/** The counts granted on `item`, by epoch. */
export function grantedOf(item: Record<string, unknown>): Granted {
  const granted = new Map<number, { used: number; spacing: number }>();
  for (const [name, value] of Object.entries(item)) {
    const epoch = /^pu(\d+)$/.exec(name)?.[1];
    const spacing = epoch && numberOf(item[spacingName(Number(epoch))]);
    if (epoch && spacing) granted.set(Number(epoch), { used: numberOf(value) ?? 0, spacing });
  }
  return granted;
}

/** The latest epoch that left `item` (none is granted at or below it). */
export function floorOf(item: Record<string, unknown>): number | undefined {
  return numberOf(item.paceFloor);
}

/** The attribute that counts the slots granted in `epoch`. */
function usedName(epoch: number): string {
  return `pu${epoch}`;
}

/** The attribute that fixes the spacing of the grid in `epoch`. */
function spacingName(epoch: number): string {
  return `ps${epoch}`;
}
