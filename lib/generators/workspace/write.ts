/**
 * The text of a generated JSON file (`.vscode/launch.json`, an event): Prettier's, as `npm run
 * check` wants every committed file.
 */
import { format, resolveConfig } from 'prettier';

/** `value` as the JSON text Prettier would leave in `file`. */
export async function jsonFileText(file: string, value: unknown): Promise<string> {
  const options = (await resolveConfig(file)) ?? {};
  return format(JSON.stringify(value, null, 2), { ...options, filepath: file });
}
