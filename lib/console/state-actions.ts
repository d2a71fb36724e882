/** The console's state actions: the `npm run state` commands, run in-process on this `npm start`. */
import type { CliIo } from '../cli/run';
import { runStateCli } from '../operator/state/cli';
import { stateTarget } from '../operator/state/engine';
import { seedPlants } from '../operator/state/seed';
import { savedStates } from '../operator/state/state';
import { argument, cliEnv, type Ran, type Where } from './data';

/** The saved states' names. */
export function stateNames(where: Where): Promise<string[]> {
  return savedStates(where.dataDir);
}

/**
 * The answer to a `save` that would replace a saved state without `overwrite: true` (409, which
 * the page confirms and sends again), else `undefined`.
 */
export async function overwriteRefusal(
  body: Record<string, unknown>,
  where: Where,
): Promise<[number, unknown] | undefined> {
  if (body.command !== 'save' || body.overwrite === true) return undefined;
  const name = String(body.name ?? '');
  if (!(await stateNames(where)).includes(name)) return undefined;
  return [409, { error: `a state named ${name} is saved already: overwrite it?`, exists: true }];
}

/**
 * `{command: 'save'|'load', name}`, `{command: 'reset', tokens}` or `{command: 'seed', text}`
 * (the file's text, pasted or picked in the page).
 */
export async function stateAction(body: Record<string, unknown>, where: Where): Promise<Ran> {
  const out: string[] = [];
  const err: string[] = [];
  const io: CliIo = {
    out: (l) => void out.push(l),
    err: (l) => void err.push(l),
    env: cliEnv(where),
  };
  const { command } = body;
  if (command === 'seed') {
    try {
      err.push(await seedPlants(stateTarget(io.env), String(body.text ?? ''), 'the seed'));
      return { code: 0, out, err };
    } catch (error) {
      return { code: 1, out, err: [`state: ${(error as Error).message}`] };
    }
  }
  if (command !== 'reset' && command !== 'save' && command !== 'load') {
    return { code: 2, out, err: [`state: unknown command ${String(command)}`] };
  }
  const argv =
    command === 'reset'
      ? ['reset', ...(body.tokens === true ? ['--tokens'] : [])]
      : [command, '--', argument('name', body.name)];
  const code = await runStateCli(argv, io);
  return { code, out, err };
}
