/** The HTTP API Lambda authorizer (payload 2.0, simple responses): shapes `verifyToken`'s verdict. */
import type { APIGatewayRequestAuthorizerEventV2 } from 'aws-lambda';
import { isStoreUnavailable } from '../aws/dynamodb';
import { withObservability } from '../observability/powertools';
import type { Principal } from '../tokens/principal';
import { TokensTable, tokensTableFromEnvironment, type TokensTableDeps } from '../tokens/table';
import { verifyToken } from './verify-token';
import type { Narrow } from '../aws/table-definition';
import { AUTHORIZER_GRANTS } from './grants';

/** What the authorizer needs: the tokens table itself, or a document client and its name. */
export type AuthorizerDeps = TokensTableDeps | { readonly table: TokensStore };

/** The tokens table narrowed to the authorizer's grants: calling another method fails to compile. */
type TokensStore = Narrow<TokensTable, typeof AUTHORIZER_GRANTS.tables.tokens>;

/** A simple response: allowed with the principal as context, or not allowed. */
export type AuthorizerResult = { isAuthorized: true; context: Principal } | { isAuthorized: false };

/** Builds the authorizer around its dependencies, so tests can inject theirs. */
export function makeAuthorizerHandler(deps: AuthorizerDeps) {
  const table: TokensStore =
    'table' in deps ? deps.table : new TokensTable(deps.tokens, deps.tableName);
  // As stored (numbers as NumberValue, never float64): verifyToken validates it.
  const lookup = (hash: string) => table.get(hash);
  return withObservability(
    async (event: APIGatewayRequestAuthorizerEventV2, log): Promise<AuthorizerResult> => {
      let verdict;
      try {
        verdict = await verifyToken(event.headers?.authorization, lookup);
      } catch (error) {
        // Name and status only: a message could echo the key, which is the token's hash.
        const { name, $metadata } = (error ?? {}) as { name?: string; $metadata?: object };
        log.outcome(isStoreUnavailable(error) ? 'unavailable' : 'error', {
          error: `${name ?? 'Error'} ${JSON.stringify($metadata ?? {})}`,
        });
        // No `cause`: the runtime logs what is thrown, and the SDK error is not ours to vouch for.
        // eslint-disable-next-line preserve-caught-error
        throw new Error('token table unreadable; denying by failing');
      }
      const { principal } = verdict;
      if (principal) {
        log.outcome('allowed', { tokenId: principal.tokenId });
        return { isAuthorized: true, context: principal };
      }
      log.outcome('denied', {
        reason: verdict.reason,
        ...(verdict.tokenId === undefined ? {} : { tokenId: verdict.tokenId }),
      });
      return { isAuthorized: false };
    },
  );
}

/** Reads the configuration once, at cold start; a missing variable fails the start, by name. */
export const fromEnvironment = tokensTableFromEnvironment;
