/** The HTTP API Lambda authorizer (payload 2.0, simple responses): shapes `verifyToken`'s verdict. */
import { GetCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { APIGatewayRequestAuthorizerEventV2 } from 'aws-lambda';
import { requireEnv } from '../shared/config';
import { isStoreUnavailable, makeDocumentClient } from '../shared/dynamodb';
import { withObservability } from '../shared/observability';
import type { Principal } from '../shared/principal';
import { TOKENS_TABLE } from '../shared/tables';
import { verifyToken, type TokenLookup } from './verify-token';

/** What the authorizer needs: a document client and the tokens table's name. */
export interface AuthorizerDeps {
  readonly tokens: DynamoDBDocumentClient;
  readonly tableName: string;
}

/** A simple response: allowed with the principal as context, or not allowed. */
export type AuthorizerResult = { isAuthorized: true; context: Principal } | { isAuthorized: false };

/** Reads a token item by hash, strongly consistent, as stored; a failing read throws (gateway 500). */
export function tableLookup(deps: AuthorizerDeps): TokenLookup {
  return async (tokenHash) => {
    const { Item } = await deps.tokens.send(
      new GetCommand({
        TableName: deps.tableName,
        Key: { [TOKENS_TABLE.partitionKey.name]: tokenHash },
        ConsistentRead: true,
      }),
    );
    // As stored (numbers as NumberValue, never float64): verifyToken validates it.
    return Item;
  };
}

/** Builds the authorizer around its dependencies, so tests can inject theirs. */
export function makeAuthorizerHandler(deps: AuthorizerDeps) {
  const lookup = tableLookup(deps);
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
export function fromEnvironment(env: NodeJS.ProcessEnv = process.env): AuthorizerDeps {
  return {
    tokens: makeDocumentClient(),
    tableName: requireEnv(TOKENS_TABLE.environmentVariable, env),
  };
}
