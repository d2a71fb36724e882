/**
 * `.vscode/launch.json` attaches to the ports `npm start -- --inspect` prints by default: one
 * configuration per function of the registry, in its order, from `DEFAULT_INSPECT_PORT` up.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../../lib/definitions/bundling';
import { FUNCTION_NAMES } from '../../lib/definitions/functions';
import { DEFAULT_INSPECT_PORT } from '../../lib/local/settings';

interface Launch {
  configurations: { name: string; request: string; port: number }[];
  compounds: { configurations: string[] }[];
}

const launch = JSON.parse(
  readFileSync(join(PROJECT_ROOT, '.vscode', 'launch.json'), 'utf8'),
) as Launch;

it('attaches to each function on the port --inspect gives it', () => {
  expect(launch.configurations.map(({ name, request, port }) => [name, request, port])).toEqual(
    FUNCTION_NAMES.map((name, i) => [`Attach: ${name}`, 'attach', DEFAULT_INSPECT_PORT + i]),
  );
});

it('has a compound that attaches to all of them', () => {
  expect(launch.compounds[0]!.configurations).toEqual(launch.configurations.map((c) => c.name));
});
