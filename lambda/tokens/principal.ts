/** The caller, as the authorizer passes it to functions in `requestContext.authorizer.lambda`. */
import * as v from 'valibot';
import { Forbidden } from '../http/answers';

/** The scope that lets a token read and list plants. */
export const PLANTS_READ = 'plants:read';
/** The scope that lets a token create plants (and, from revision 2, change them). */
export const PLANTS_WRITE = 'plants:write';
/** The scope that lets a token delete plants. */
export const PLANTS_DELETE = 'plants:delete';

/**
 * What the scopes mean, by revision. A token keeps the revision it was made with (`tokenItem`),
 * so that an operation added later never widens a token made before it: its scope covers what
 * it covered when the token was made. Tokens of 1.0.0 and 1.1.0 store none: revision 1.
 * - 1: `plants:write` creates plants.
 * - 2 (1.2.0): `plants:write` also changes them (PUT, PATCH).
 */
export const SCOPES_REVISION = 2;

/** The revision of a token that stores none (1.0.0 and 1.1.0 stored none): the narrowest. */
export const UNSTORED_SCOPES_REVISION = 1;

/** A scopes revision, as the authorizer passes it on. */
export const ScopesRevision = v.pipe(v.number(), v.integer(), v.minValue(UNSTORED_SCOPES_REVISION));

/** What an operation needs of a token: a scope, held by a token of revision `since` or later. */
export interface ScopeNeed {
  readonly scope: string;
  readonly since: number;
  /** The release that brought revision `since`, which the 403 names. */
  readonly release: string;
}

/** What a change (PUT, PATCH) needs: `plants:write`, of a token made since it covers changes. */
export const CHANGE_NEED: ScopeNeed = { scope: PLANTS_WRITE, since: 2, release: '1.2.0' };

/**
 * Authorizer context: `scopes` is one space-separated string (context values are scalars);
 * `scopesRevision`, what they mean (absent: 1, the narrowest).
 */
export const Principal = v.object({
  tokenId: v.string(),
  name: v.string(),
  scopes: v.string(),
  // Anything but a revision reads as the narrowest: it narrows the token, never denies it all.
  scopesRevision: v.fallback(
    v.optional(ScopesRevision, UNSTORED_SCOPES_REVISION),
    UNSTORED_SCOPES_REVISION,
  ),
});
export type Principal = v.InferOutput<typeof Principal>;

/** The principal in an authorizer context, or `undefined` when there is none (a direct invoke). */
export function principalOf(context: unknown): Principal | undefined {
  const result = v.safeParse(Principal, context);
  return result.success ? result.output : undefined;
}

/**
 * The principal, or `Forbidden` unless there is one, it holds the scope `need` names and (for a
 * `ScopeNeed`) its token was made when that scope covered the operation.
 */
export function requireScope(
  principal: Principal | undefined,
  need: string | ScopeNeed,
): Principal {
  const scope = typeof need === 'string' ? need : need.scope;
  if (!principal?.scopes.split(' ').includes(scope)) {
    throw new Forbidden(lacksScopeMessage(scope));
  }
  if (typeof need !== 'string' && principal.scopesRevision < need.since) {
    throw new Forbidden(revisionMessage(need));
  }
  return principal;
}

/** The 403 of a token without the scope `scope`. */
export function lacksScopeMessage(scope: string): string {
  return `the token lacks the scope ${scope}`;
}

/** The 403 of a token whose scope did not cover the operation when the token was made. */
export function revisionMessage({ scope, release }: ScopeNeed): string {
  return `the token was made before ${release}, when its scope ${scope} did not cover this operation; make a new token for it`;
}
