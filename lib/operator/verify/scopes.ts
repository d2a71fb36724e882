/**
 * The token's scopes, learnt from the service's own answers rather than told: only the service
 * knows what a token holds (it stores the token's hash), and a flag could claim scopes the token
 * lacks. Each probe is a request that cannot change anything whatever the scopes (a body that is
 * not JSON, an id that is not one), and the service checks the scope first: a 403 Error names
 * the missing scope, anything else means the token holds it.
 */
import {
  check,
  errorBody,
  gatewayBody,
  Mismatch,
  SAFE_METHODS,
  shown,
  type Answer,
  type Scope,
  type VerifyCase,
  type VerifyContext,
} from './context';

/** One probe per scope: the request, and what it is answered when the token holds the scope. */
const PROBES: readonly { scope: Scope; method: string; path: string; held: number }[] = [
  { scope: 'plants:read', method: 'GET', path: '/plants/not-an-id', held: 400 },
  { scope: 'plants:write', method: 'POST', path: '/plants', held: 415 },
  { scope: 'plants:delete', method: 'DELETE', path: '/plants/not-an-id', held: 400 },
];

/** What the probes found. */
export interface LearntScopes {
  readonly scopes: ReadonlySet<Scope>;
  /** Why no case that needs a token can run (refused by the gateway, or no answer). */
  readonly refused?: string;
  readonly answers: readonly { scope: Scope; held: number; answer: Answer }[];
  /** The scopes whose probe was not sent (`--read-only` sends no POST or DELETE). */
  readonly notProbed?: readonly Scope[];
}

/** Sends the probes. */
export async function learnScopes(context: VerifyContext): Promise<LearntScopes> {
  const scopes = new Set<Scope>();
  const answers: LearntScopes['answers'][number][] = [];
  const notProbed: Scope[] = [];
  for (const probe of PROBES) {
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
          check(answer, {
            status: 403,
            text: errorBody(403, `the token lacks the scope ${scope}`),
          });
        } else if (answer.status !== held) {
          throw new Mismatch(`${held} or 403 naming ${scope}`, shown(answer));
        }
      }
    },
  },
];
