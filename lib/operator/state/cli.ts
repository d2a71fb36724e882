/**
 * `npm run state -- save NAME | load NAME | reset [--tokens] | seed FILE | list`: the local data
 * saved under a name, put back, emptied or seeded, while `npm start` runs (`state.ts`).
 */
import { readFile } from 'node:fs/promises';
import { commandError, parseCommandLine, UsageError } from '../../cli/args';
import { failureExitCode, type CliIo } from '../../cli/run';
import { LOCAL_ENVIRONMENT, type LocalVariable } from '../../definitions/settings';
import { DEV_TOKEN_ID } from '../../npm-start/find';
import { stateTarget, type StateTarget } from './engine';
import { seedPlants } from './seed';
import { loadState, resetState, saveState, savedStates } from './state';

/** The cache of the authorizer's decisions that a running `npm start` was given. */
const AUTH_CACHE_TTL: LocalVariable = 'PLANT_STORE_AUTH_CACHE_TTL';

/**
 * `reset --tokens` removes the dev token with the others; a request sent with it meanwhile is
 * refused, and the gateway caches that refusal, so it outlasts the token's return for a time.
 */
const DEV_TOKEN_REMOVED = `reset: npm start's dev token (${DEV_TOKEN_ID}) is removed too: it comes back with state load or npm start's next start, and the gateway may refuse it for up to ${AUTH_CACHE_TTL} seconds after (default ${LOCAL_ENVIRONMENT[AUTH_CACHE_TTL].default}) if a request used it meanwhile`;

export const STATE_HELP = `Usage: npm run state -- <command> [options]

The local data of npm start (or npm run db), while it runs, as its operator.

Commands:
  save <name>        Keep every table's items (plants with their versions and tombstones,
                     tokens, subscribers with their sealed secrets) and the dead-letter and
                     failure queues' messages in <data dir>/states/<name>.json.
  load <name>        Put a saved state back exactly; what it does not hold is removed. Every
                     item is checked first: a refused load changes nothing. An interrupted
                     load leaves a mix of both states (save first to keep the current one).
  reset [--tokens]   Remove every plant and subscriber; the tokens stay unless --tokens
                     (npm start's dev token too: after it comes back, the gateway may refuse
                     it for up to ${AUTH_CACHE_TTL} seconds, its cached refusal).
  seed <file>        Create the plants of a JSON file (an array, or {"plants": [...]}), each
                     checked as POST /plants checks its body; one invalid entry, or an id a
                     plant holds, refuses the whole file (the entry is named).
  list               The saved states' names.

Writes reach the stream as any write does: subscribers receive the plants loaded or seeded.

Exit codes: 0 done, 1 failed, 2 a usage mistake.

Target: the engine npm start recorded in its data directory (PLANT_STORE_DATA_DIR,
.plant-store by default), or PLANT_STORE_DB_PORT.
  --help             This text.
`;

const OPTIONS = { tokens: { type: 'boolean' } } as const;

/** Runs the CLI and returns its exit code; never throws. */
export async function runStateCli(argv: readonly string[], io: CliIo): Promise<number> {
  let target: StateTarget | undefined;
  try {
    const { values, positionals, help } = parseCommandLine(argv, OPTIONS, true);
    const [command, ...rest] = positionals;
    if (help || command === 'help') {
      io.out(STATE_HELP);
      return 0;
    }
    const one = (what: string) => {
      if (rest.length !== 1) throw new UsageError(`${command} needs exactly one ${what}`);
      return rest[0]!;
    };
    if (values.tokens && command !== 'reset') throw new UsageError('--tokens goes with reset');
    target = stateTarget(io.env);
    if (command === 'save') io.err(await saveState(target, one('name')));
    else if (command === 'load') io.err(await loadState(target, one('name')));
    else if (command === 'reset') {
      if (rest.length > 0) throw new UsageError(`unexpected argument ${rest[0]}`);
      io.err(await resetState(target, values.tokens === true));
      if (values.tokens) io.err(DEV_TOKEN_REMOVED);
    } else if (command === 'seed') {
      const file = one('file');
      let text: string;
      try {
        text = await readFile(file, 'utf8');
      } catch (error) {
        throw new Error(`cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? error}`, {
          cause: error,
        });
      }
      io.err(await seedPlants(target, text, file));
    } else if (command === 'list') {
      if (rest.length > 0) throw new UsageError(`unexpected argument ${rest[0]}`);
      for (const name of await savedStates(target.dataDir)) io.out(name);
    } else throw commandError(command, ['save', 'load', 'reset', 'seed', 'list']);
    return 0;
  } catch (caught) {
    return failureExitCode('state', caught, io.err, (error) => describe(error, target));
  }
}

/** One line that says what went wrong, without a stack. */
function describe(error: unknown, target: StateTarget | undefined): string {
  const { name, code, message } = (error ?? {}) as {
    name?: string;
    code?: string;
    message?: string;
  };
  if (code === 'ECONNREFUSED' || name === 'TimeoutError') {
    return target?.unreachable ?? 'cannot reach the local engine';
  }
  if (name === 'UnrecognizedClientException' || name === 'InvalidClientTokenId') {
    return `the engine refused the operator's keys: is ${target?.dataDir ?? 'the data directory'} the data directory of the npm start that runs?`;
  }
  if (name === 'ResourceNotFoundException')
    return 'a table does not exist (npm start creates them)';
  return message || String(error);
}
