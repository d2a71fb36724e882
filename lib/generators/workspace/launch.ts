/**
 * `.vscode/launch.json`, derived from the registry: an attach configuration per function on the
 * port `npm start -- --inspect` gives it (registry order, from `DEFAULT_INSPECT_PORT` up), one
 * that picks a function started on other ports from the processes, and a compound of them all.
 */
import { join } from 'node:path';
import { PROJECT_ROOT } from '../../definitions/bundling';
import { FUNCTION_NAMES } from '../../definitions/functions';
import { DEFAULT_INSPECT_PORT } from '../../npm-start/find';

/** Where VS Code reads it. */
export const LAUNCH_FILE = join(PROJECT_ROOT, '.vscode', 'launch.json');

/** What every attach configuration shares: the bundles' source maps, the project's sources. */
const ATTACH = {
  type: 'node',
  request: 'attach',
} as const;
const SOURCES = {
  sourceMaps: true,
  outFiles: ['${workspaceFolder}/.plant-store/functions/**/*.mjs'],
  resolveSourceMapLocations: ['${workspaceFolder}/**'],
  skipFiles: ['<node_internals>/**', '**/node_modules/**'],
};

/** The launch configurations, as VS Code reads them. */
export function launchConfigurations() {
  const byPort = FUNCTION_NAMES.map((name, i) => ({
    name: `Attach: ${name}`,
    ...ATTACH,
    address: '127.0.0.1',
    port: DEFAULT_INSPECT_PORT + i,
    restart: true,
    ...SOURCES,
  }));
  return {
    version: '0.2.0',
    configurations: [
      ...byPort,
      {
        // VS Code substitutes ${env:...} only into strings, and an attach port must be a number:
        // a function under another PLANT_STORE_INSPECT_PORT is picked from the processes.
        name: 'Attach: a function on another port (PLANT_STORE_INSPECT_PORT)',
        ...ATTACH,
        processId: '${command:PickProcess}',
        ...SOURCES,
      },
    ],
    compounds: [
      { name: 'Attach to all functions', configurations: byPort.map((config) => config.name) },
    ],
  };
}
