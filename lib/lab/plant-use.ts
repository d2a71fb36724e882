/**
 * What an operation's request does with a plant, derived from its registry entry: a function
 * granted the plants table's `putNew` creates the plant its request names (a new id each time),
 * one granted `delete` removes it (each plant once), and any other whose example request changes
 * with the plant's id names a plant that must exist (a read, a change, a batch read). The bench
 * and the load order and seed their requests by it.
 */
import { exampleRequest, NotDerivable } from '../definitions/example-request';
import { FUNCTIONS, type FunctionName } from '../definitions/functions';

/** What a request does with the plant it names; undefined when it names none (a list). */
export type PlantUse = 'creates' | 'deletes' | 'names' | undefined;

/** What `name`'s operation does with a plant (throws `NotDerivable` as `exampleRequest`). */
export function plantUse(name: FunctionName): PlantUse {
  const methods: readonly string[] = FUNCTIONS[name].tables.plants ?? [];
  if (methods.includes('putNew')) return 'creates';
  if (methods.includes('delete')) return 'deletes';
  const [one, two] = [1, 2].map((id) => JSON.stringify(exampleRequest(name, id)));
  return one === two ? undefined : 'names';
}

/** Why `name`'s operation cannot be sent (`NotDerivable`'s message), or undefined when it can. */
export function refusal(name: FunctionName): string | undefined {
  try {
    plantUse(name);
    return undefined;
  } catch (error) {
    if (error instanceof NotDerivable) return error.message;
    throw error;
  }
}
