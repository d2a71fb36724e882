/**
 * The frame every plants handler shares, so that a handler says only its scope, its operation
 * and its outcome: the table (built once, or injected by a test), one log line and the metrics
 * per request (`withObservability`), the caller's token id on that line, the scope check, and
 * every thrown error mapped to its answer.
 */
import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import type { Narrow } from '../aws/table-definition';
import { errorResponse } from '../http/answers';
import type { Outcome } from '../observability/metrics-contract';
import { withObservability, type RequestLog } from '../observability/powertools';
import { bindMethods, type PlantsMethods, type PlantsStore, type PlantsTableDeps } from './table';
import { principalOf, requireScope, type Principal, type ScopeNeed } from '../tokens/principal';
import type { PlantsEvent } from './request';

/** What a plants handler is built around: the table itself, or a document client and its name. */
export type PlantsHandlerDeps = PlantsTableDeps | { readonly table: PlantsStore };

/**
 * What an operation is given: the event, the table narrowed to the methods its function is given
 * (`Store`), the caller (holding the scope), the log line.
 */
export interface PlantsRequest<Store = PlantsStore> {
  readonly event: PlantsEvent;
  readonly plants: Store;
  readonly principal: Principal;
  readonly log: RequestLog;
}

/** What an operation answers: the outcome its log line and metric record, and the response. */
export interface PlantsAnswer {
  readonly outcome: Outcome;
  readonly response: APIGatewayProxyStructuredResultV2;
}

/** A plants operation: runs once the caller is known to hold its scope; throws `HttpError`s. */
export type PlantsOperation<Store = PlantsStore> = (
  request: PlantsRequest<Store>,
) => Promise<PlantsAnswer>;

/**
 * The factory of a handler that requires `scope` (a scope, or a `ScopeNeed`) and then runs
 * `operation`. The token id goes on the log line before the scope check, so that a 403 says whose
 * token lacked the scope. `Methods`: the function's grants on the table (its `grants.ts`), and
 * `methods` their code (`{ putNew }`), no other method: the operation sees the table narrowed to
 * them, so calling another method fails to compile, and the function's bundle carries no other
 * method's code (test/functions/unit/bundles.test.ts holds each bundle to its grants).
 */
export function plantsHandler<Methods extends readonly (keyof PlantsStore)[]>(
  scope: string | ScopeNeed,
  methods: Pick<PlantsMethods, Methods[number]> & {
    readonly [Name in Exclude<keyof PlantsMethods, Methods[number]>]?: never;
  },
  operation: PlantsOperation<Narrow<PlantsStore, Methods>>,
) {
  return (deps: PlantsHandlerDeps) => {
    const plants: Narrow<PlantsStore, Methods> =
      'table' in deps ? deps.table : bindMethods<Methods[number]>(deps, methods);
    return withObservability(
      async (event: PlantsEvent, log): Promise<APIGatewayProxyStructuredResultV2> => {
        try {
          const caller = principalOf(event.requestContext?.authorizer?.lambda);
          if (caller) log.set({ tokenId: caller.tokenId });
          const principal = requireScope(caller, scope);
          const { outcome, response } = await operation({ event, plants, principal, log });
          log.outcome(outcome);
          return response;
        } catch (error) {
          return errorResponse(error, log);
        }
      },
    );
  };
}
