/**
 * `.vscode/launch.json` (which `npm run generate -- --check` holds to the registry) attaches to
 * the ports `npm start -- --inspect` prints by default: one configuration per function of the
 * registry, in its order, from `DEFAULT_INSPECT_PORT` up; and to a function started from
 * another PLANT_STORE_INSPECT_PORT, picked from the processes.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../../../lib/definitions/bundling';
import { FUNCTION_NAMES } from '../../../lib/definitions/functions';
import { DEFAULT_INSPECT_PORT } from '../../../lib/local/process/settings';

interface Launch {
  configurations: { name: string; request: string; port?: number; processId?: string }[];
  compounds: { configurations: string[] }[];
}

const launch = JSON.parse(
  readFileSync(join(PROJECT_ROOT, '.vscode', 'launch.json'), 'utf8'),
) as Launch;

const byPort = launch.configurations.filter((c) => c.port !== undefined);

it('attaches to each function on the port --inspect gives it', () => {
  expect(byPort.map(({ name, request, port }) => [name, request, port])).toEqual(
    FUNCTION_NAMES.map((name, i) => [`Attach: ${name}`, 'attach', DEFAULT_INSPECT_PORT + i]),
  );
});

it('has a compound that attaches to all of them', () => {
  expect(launch.compounds[0]!.configurations).toEqual(byPort.map((c) => c.name));
});

it('honours PLANT_STORE_INSPECT_PORT through a process picker (launch.json ports are numbers)', () => {
  // VS Code substitutes ${env:...} only into strings, and an attach port must be a number: a
  // function under another first port is picked from the running processes instead, and the
  // debugger reads its port from the process's --inspect flag.
  expect(launch.configurations.filter((c) => c.port === undefined)).toEqual([
    expect.objectContaining({
      name: 'Attach: a function on another port (PLANT_STORE_INSPECT_PORT)',
      request: 'attach',
      processId: '${command:PickProcess}',
    }),
  ]);
});
