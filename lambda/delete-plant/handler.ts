/** DELETE /plants/{id}: an adapter from the HTTP API event to `deletePlant` and back. */
import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { emptyResponse, errorResponse } from '../shared/http';
import { withObservability } from '../shared/observability';
import {
  PlantsTable,
  plantsTableFromEnvironment,
  type PlantsTableDeps,
} from '../shared/plants-table';
import { PLANTS_DELETE, requireScope } from '../shared/principal';
import { readPlantId, type PlantsEvent } from '../shared/request';
import { deletePlant } from './delete-plant';

/** Builds the handler around its dependencies, so tests can inject theirs. */
export function makeDeletePlantHandler(deps: PlantsTableDeps) {
  const plants = new PlantsTable(deps.plants, deps.tableName);
  return withObservability(
    async (event: PlantsEvent, log): Promise<APIGatewayProxyStructuredResultV2> => {
      try {
        const principal = requireScope(event.requestContext?.authorizer?.lambda, PLANTS_DELETE);
        log.set({ tokenId: principal.tokenId });
        const id = readPlantId(event);
        log.set({ plantId: String(id) });
        // A deletion cannot be undone: the log line keeps who deleted what.
        await deletePlant(plants, id);
        log.outcome('deleted');
        return emptyResponse(204);
      } catch (error) {
        return errorResponse(error, log);
      }
    },
  );
}

/** Reads the configuration once, at cold start; a missing variable fails the start, by name. */
export const fromEnvironment = plantsTableFromEnvironment;
