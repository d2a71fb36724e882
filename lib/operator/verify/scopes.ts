/**
 * The token's scopes, learnt from the service's own answers rather than told: only the service
 * knows what a token holds (it stores the token's hash), and a flag could claim scopes the token
 * lacks. Each probe is a request that cannot change anything whatever the scopes (a body that is
 * not JSON, an id that is not one), and the service checks the scope first: a 403 Error names
 * the missing scope, anything else means the token holds it. A token that holds `plants:write`
 * is also asked whether it changes plants (`CHANGES`): one made before 1.2.0 does not.
 */
import { CHANGE_NEED, lacksScopeMessage, revisionMessage } from '../../../lambda/tokens/principal';
import {
  check,
  errorBody,
  gatewayBody,
  Mismatch,
  SAFE_METHODS,
  shown,
  CHANGES,
  type Answer,
  type Need,
  type VerifyCase,
  type VerifyContext,
} from './context';

/**
 * One probe per need: the request, and what it is answered when the token holds it (`CHANGES`
 * is asked only of a token that holds `plants:write`).
 */
const PROBES: readonly { scope: Need; method: string; path: string; held: number }[] = [
  { scope: 'plants:read', method: 'GET', path: '/plants/not-an-id', held: 400 },
  { scope: 'plants:write', method: 'POST', path: '/plants', held: 415 },
  { scope: 'plants:delete', method: 'DELETE', path: '/plants/not-an-id', held: 400 },
  { scope: CHANGES, method: 'PATCH', path: '/plants/not-an-id', held: 400 },
];

/** The 403 of a probe the token does not hold. */
function refusedText(scope: Need): string {
  return errorBody(
    403,
    scope === CHANGES ? revisionMessage(CHANGE_NEED) : lacksScopeMessage(scope),
  );
}

/** What the probes found. */
export interface LearntScopes {
  readonly scopes: ReadonlySet<Need>;
  /** Why no case that needs a token can run (refused by the gateway, or no answer). */
  readonly refused?: string;
  readonly answers: readonly { scope: Need; held: number; answer: Answer }[];
  /** The needs whose probe was not sent (`--read-only` sends no POST, PATCH or DELETE). */
  readonly notProbed?: readonly Need[];
}

/** Sends the probes. */
export async function learnScopes(context: VerifyContext): Promise<LearntScopes> {
  const scopes = new Set<Need>();
  const answers: LearntScopes['answers'][number][] = [];
  const notProbed: Need[] = [];
  for (const probe of PROBES) {
    if (probe.scope === CHANGES && !scopes.has('plants:write')) continue;
    if (context.target.readOnly && !SAFE_METHODS.has(probe.method)) {
      notProbed.push(probe.scope);
      continue;
    }
    let answer: Answer;
    try {
      answer = await context.send(probe.method, probe.path, {
        body: probe.method === 'POST' ? 'not json' : undefined,
        contentType: probe.method === 'POST' ? 'text/plain' : undefined,
      });
    } catch (error) {
      return { scopes, answers, notProbed, refused: (error as Error).message };
    }
    if (answer.text === gatewayBody('Forbidden') || answer.status === 401) {
      return {
        scopes,
        answers,
        notProbed,
        refused: `the gateway refused the token (${shown(answer)}): unknown, expired or revoked here, or made for another deployment`,
      };
    }
    answers.push({ scope: probe.scope, held: probe.held, answer });
    if (answer.status !== 403) scopes.add(probe.scope);
  }
  return { scopes, answers, notProbed };
}

export const SCOPE_CASES: readonly VerifyCase[] = [
  {
    name: 'scopes: each scope is answered as held, or 403 naming it',
    needs: [],
    changes: false,
    run: async (t) => {
      for (const { scope, held, answer } of t.learnt.answers) {
        if (answer.status === 403) {
          check(answer, { status: 403, text: refusedText(scope) });
        } else if (answer.status !== held) {
          throw new Mismatch(`${held} or 403 naming ${scope}`, shown(answer));
        }
      }
    },
  },
];
