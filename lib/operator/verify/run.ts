/**
 * Runs the cases against one target: learns the token's scopes, runs each case that may run
 * (skipping the others by name, saying why), and deletes what the cases created whatever
 * happened, reporting any plant it could not delete as a failure.
 */
import { CHANGE_NEED } from '../../../lambda/tokens/principal';
import { VERIFY_CASES } from './cases';
import {
  Mismatch,
  CHANGES,
  SCOPES,
  Skip,
  VerifyContext,
  type TargetOptions,
  type VerifyCase,
} from './context';
import { reservedBy } from '../reserved-ids';
import { hidden } from './report';
import { learnScopes } from './scopes';

/** How to run. */
export interface VerifyOptions extends TargetOptions {
  /** Told of each result as it comes. */
  readonly onResult?: (result: CaseResult) => void;
}

/** One case's verdict. */
export interface CaseResult {
  readonly name: string;
  readonly result: 'pass' | 'fail' | 'skip';
  /** Why it was skipped, or what failed. */
  readonly detail?: string;
  readonly expected?: string;
  readonly got?: string;
  readonly ms: number;
}

/** What a run found. */
export interface VerifyRun {
  readonly results: readonly CaseResult[];
  /** The scopes the token holds, as the service answered. */
  readonly scopes: readonly string[];
  /** The scopes not probed (`--read-only`). */
  readonly notProbed: readonly string[];
}

/** The clean-up's own line. */
export const CLEAN_UP_CASE = 'clean-up: every plant and subscriber this run created is deleted';
/** The token's own line, when the gateway refuses it. */
export const TOKEN_CASE = 'token: the gateway accepts the token';

/** The case told that the run was stopped (SIGINT, SIGTERM) before every case had run. */
export const INTERRUPTED_CASE = 'interrupted: every case ran to its end';

/** Why `c` does not run here, or `undefined`. */
function skipReason(c: VerifyCase, context: VerifyContext, options: VerifyOptions) {
  if (options.readOnly && c.changes) return '--read-only: it creates or changes plants';
  if (c.receiver && !options.receiver) return 'no --receiver: the target has no receiver to reach';
  if (c.writeOnlyToken && !options.writeOnlyToken) {
    return 'no PLANT_STORE_WRITE_ONLY_TOKEN (a token with plants:write alone)';
  }
  if (c.needs.length && context.learnt.refused) return 'the gateway refuses the token';
  const unprobed = c.needs.filter((scope) => context.learnt.notProbed?.includes(scope));
  if (unprobed.length) return `--read-only: ${unprobed.join(' and ')} not probed`;
  const missing = c.needs.filter((scope) => scope !== CHANGES && !context.learnt.scopes.has(scope));
  if (missing.length) return `the token lacks ${missing.join(' and ')}`;
  if (c.needs.includes(CHANGES) && !context.learnt.scopes.has(CHANGES)) {
    return `the token was made before ${CHANGE_NEED.release}: its plants:write creates, but changes no plant`;
  }
  return undefined;
}

/** Runs `cases` (all of them by default) against the target. */
export async function runVerify(
  options: VerifyOptions,
  cases: readonly VerifyCase[] = VERIFY_CASES,
): Promise<VerifyRun> {
  const results: CaseResult[] = [];
  const secrets = [options.token, options.writeOnlyToken];
  const note = (found: CaseResult) => {
    const result = { ...found };
    for (const field of ['detail', 'expected', 'got'] as const) {
      if (result[field] !== undefined) result[field] = hidden(result[field], secrets);
    }
    results.push(result);
    options.onResult?.(result);
  };
  const context = new VerifyContext(options);
  context.learnt = await learnScopes(context);
  if (context.learnt.refused) {
    note({ name: TOKEN_CASE, result: 'fail', detail: context.learnt.refused, ms: 0 });
  }
  let changed = false;
  try {
    if (!options.readOnly) changed = await removeLeftovers(context, cases, note);
    for (const c of cases) {
      if (context.stopped) {
        note({ name: INTERRUPTED_CASE, result: 'fail', detail: 'stopped by a signal', ms: 0 });
        break;
      }
      const skip = skipReason(c, context, options);
      if (skip) {
        note({ name: c.name, result: 'skip', detail: skip, ms: 0 });
        continue;
      }
      changed ||= c.changes;
      const started = performance.now();
      const ms = () => Math.round(performance.now() - started);
      try {
        await c.run(context);
        note({ name: c.name, result: 'pass', ms: ms() });
      } catch (error) {
        if (error instanceof Skip)
          note({ name: c.name, result: 'skip', detail: error.message, ms: ms() });
        else if (error instanceof Mismatch) {
          const { expected, got } = error;
          note({ name: c.name, result: 'fail', detail: error.message, expected, got, ms: ms() });
        } else
          note({
            name: c.name,
            result: 'fail',
            detail: String((error as Error).message ?? error),
            ms: ms(),
          });
      }
    }
  } finally {
    const left = await context.cleanUp();
    if (changed) {
      note(
        left.length
          ? {
              name: CLEAN_UP_CASE,
              result: 'fail',
              detail: `plants left behind: ${left.join(', ')}`,
              expected: 'none left',
              got: left.join(', '),
              ms: 0,
            }
          : { name: CLEAN_UP_CASE, result: 'pass', ms: 0 },
      );
    }
  }
  return {
    results,
    scopes: SCOPES.filter((scope) => context.learnt.scopes.has(scope)),
    notProbed: context.learnt.notProbed ?? [],
  };
}

/** What an edge case's plant is named: only a plant so named is verify's own leftover. */
const EDGE_NAME = '"name":"verify edge"';

/**
 * Deletes, saying so, a plant that an interrupted run left at a fixed id of verify's range
 * (the int64 edges), known by the name only verify gives it: that id's case would otherwise
 * fail on every later run. Any other plant, and every id out of the range, is left alone.
 */
async function removeLeftovers(
  context: VerifyContext,
  cases: readonly VerifyCase[],
  note: (result: CaseResult) => void,
): Promise<boolean> {
  const { scopes } = context.learnt;
  if (!scopes.has('plants:read') || !scopes.has('plants:delete')) return false;
  let removed = false;
  for (const edge of cases.flatMap((c) => (c.fixedId === undefined ? [] : [c.fixedId]))) {
    if (reservedBy(edge) !== 'verify') continue;
    const read = await context.send('GET', `/plants/${edge}`).catch(() => undefined);
    if (read?.status !== 200 || !read.text.includes(EDGE_NAME)) continue;
    const deleted = await context.send('DELETE', `/plants/${edge}`).catch(() => undefined);
    removed = true;
    note({
      name: `leftover: the plant ${edge} an interrupted run left is deleted`,
      result: deleted?.status === 204 ? 'pass' : 'fail',
      ...(deleted?.status === 204
        ? {}
        : { detail: `DELETE answered ${deleted?.status ?? 'nothing'}` }),
      ms: 0,
    });
  }
  return removed;
}

/** True when no case failed. */
export function verifyPassed(run: VerifyRun): boolean {
  return run.results.every((r) => r.result !== 'fail');
}
