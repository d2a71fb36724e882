/** The caller, as the authorizer passes it to functions in `requestContext.authorizer.lambda`. */
import * as v from 'valibot';
import { Forbidden } from '../http/answers';

/** The scope that lets a token read and list plants. */
export const PLANTS_READ = 'plants:read';
/** The scope that lets a token create plants. */
export const PLANTS_WRITE = 'plants:write';
/** The scope that lets a token delete plants. */
export const PLANTS_DELETE = 'plants:delete';

/** Authorizer context: `scopes` is one space-separated string (context values are scalars). */
export const Principal = v.object({
  tokenId: v.string(),
  name: v.string(),
  scopes: v.string(),
});
export type Principal = v.InferOutput<typeof Principal>;

/** The principal in an authorizer context, or `undefined` when there is none (a direct invoke). */
export function principalOf(context: unknown): Principal | undefined {
  const result = v.safeParse(Principal, context);
  return result.success ? result.output : undefined;
}

/** The principal, or `Forbidden` unless there is one and it holds `scope`. */
export function requireScope(principal: Principal | undefined, scope: string): Principal {
  if (!principal?.scopes.split(' ').includes(scope)) {
    throw new Forbidden(`the token lacks the scope ${scope}`);
  }
  return principal;
}
