/**
 * Writes the workspace files derived from the registry: `.vscode/launch.json` (rewritten) and
 * the event of each API function that has none (events.ts says why the others are kept). The
 * text is Prettier's, as `npm run check` wants every committed file.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { format, resolveConfig } from 'prettier';
import { FUNCTION_NAMES } from '../../definitions/functions';
import { eventFile, routeEvent } from './events';
import { LAUNCH_FILE, launchConfigurations } from './launch';

/** `value` as the JSON text Prettier would leave in `file`. */
export async function jsonFileText(file: string, value: unknown): Promise<string> {
  const options = (await resolveConfig(file)) ?? {};
  return format(JSON.stringify(value, null, 2), { ...options, filepath: file });
}

/** What `npm run generate` writes besides the API reference; answers the files it changed. */
export async function writeWorkspace(): Promise<string[]> {
  const written: string[] = [];
  const launch = await jsonFileText(LAUNCH_FILE, launchConfigurations());
  if (!existsSync(LAUNCH_FILE) || readFileSync(LAUNCH_FILE, 'utf8') !== launch) {
    writeFileSync(LAUNCH_FILE, launch);
    written.push(LAUNCH_FILE);
  }
  for (const name of FUNCTION_NAMES) {
    const event = routeEvent(name);
    if (event === undefined || existsSync(eventFile(name))) continue;
    writeFileSync(eventFile(name), await jsonFileText(eventFile(name), event));
    written.push(eventFile(name));
  }
  return written;
}
