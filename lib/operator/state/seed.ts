/**
 * `npm run state -- seed FILE`: plants from a JSON file, each checked by POST /plants' schema and
 * created as POST /plants creates it; one wrong entry refuses the whole file, named.
 */
import { GetItemCommand } from '@aws-sdk/client-dynamodb';
import * as v from 'valibot';
import { makeDocumentClient } from '../../../lambda/aws/dynamodb';
import { PLANTS_TABLE } from '../../../lambda/aws/tables';
import { createPlant } from '../../../lambda/create-plant/create-plant';
import { JsonNumber, parseJson } from '../../../lambda/http/json';
import { describeIssues, NewPlant } from '../../../lambda/plants/schemas';
import { plantsTable } from '../../../lambda/plants/table';
import { withClients, type StateTarget } from './engine';

/**
 * `seed FILE` (its text): a JSON array of plants (or `{"plants": [...]}`), ids exact. Every
 * entry is checked first, by POST /plants' schema, and none may name an id a plant holds (or
 * another entry): one that fails refuses the whole file, named by its position and id. Then each
 * is created as POST /plants creates it.
 */
export async function seedPlants(
  target: StateTarget,
  text: string,
  file = 'the seed',
): Promise<string> {
  const entries = seedEntries(text, file);
  const plants: NewPlant[] = [];
  const ids = new Set<bigint>();
  for (const [index, entry] of entries.entries()) {
    const id = (entry as { id?: unknown } | null)?.id;
    const shown = id instanceof JsonNumber ? id.literal : id;
    const named = `entry ${index + 1}${typeof shown === 'bigint' || typeof shown === 'number' || typeof shown === 'string' ? ` (id ${String(shown)})` : ''}`;
    const result = v.safeParse(NewPlant, entry);
    if (!result.success) {
      throw new Error(`${file}: ${named}: ${describeIssues(result.issues)}; nothing was seeded`);
    }
    if (ids.has(result.output.id)) {
      throw new Error(`${file}: ${named}: the id is given twice; nothing was seeded`);
    }
    ids.add(result.output.id);
    plants.push(result.output);
  }
  return withClients(target, async (db) => {
    for (const [index, plant] of plants.entries()) {
      const { Item } = await db.send(
        new GetItemCommand({
          TableName: PLANTS_TABLE.localName,
          Key: { id: { N: String(plant.id) } },
          ConsistentRead: true,
        }),
      );
      if (Item && Item.deletedAt === undefined) {
        throw new Error(
          `${file}: entry ${index + 1} (id ${plant.id}): a plant holds that id; nothing was seeded`,
        );
      }
    }
    // A command may wait for a busy engine: not the functions' 2 s budget, nor one attempt.
    const client = makeDocumentClient({
      ...target.config,
      maxAttempts: 3,
      requestHandler: { connectionTimeout: 5_000, requestTimeout: 30_000 },
    });
    const table = plantsTable(client, PLANTS_TABLE.localName);
    for (const plant of plants) await createPlant(table, plant, 'operator (npm run state)');
    return `seeded ${plants.length} plant${plants.length === 1 ? '' : 's'} from ${file}`;
  });
}

/**
 * A seed file's entries, parsed as the API parses a body: ids exact, and every other number kept
 * as the literal it wrote (a `JsonNumber`), so that a number field judges that decimal, never the
 * float64 nearest to it (`19.999999999999999999` is not 20).
 */
export function seedEntries(text: string, file = 'the seed'): unknown[] {
  let value: unknown;
  try {
    value = parseJson(text, { literals: true });
  } catch (error) {
    throw new Error(`${file} is not JSON: ${(error as Error).message}`, { cause: error });
  }
  const entries = Array.isArray(value)
    ? value
    : Array.isArray((value as { plants?: unknown } | null)?.plants)
      ? (value as { plants: unknown[] }).plants
      : undefined;
  if (!entries) throw new Error(`${file} must be a JSON array of plants (or {"plants": [...]})`);
  return entries;
}
