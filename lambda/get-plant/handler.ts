/** GET /plants/{id}: an adapter from the HTTP API event to `getPlant` and back. */
import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { errorResponse, jsonResponse } from '../shared/http';
import { withObservability } from '../shared/observability';
import {
  PlantsTable,
  plantsTableFromEnvironment,
  type PlantsTableDeps,
} from '../shared/plants-table';
import { PLANTS_READ, requireScope } from '../shared/principal';
import { readPlantId, type PlantsEvent } from '../shared/request';
import { getPlant } from './get-plant';

/** Builds the handler around its dependencies, so tests can inject theirs. */
export function makeGetPlantHandler(deps: PlantsTableDeps) {
  const plants = new PlantsTable(deps.plants, deps.tableName);
  return withObservability(
    async (event: PlantsEvent, log): Promise<APIGatewayProxyStructuredResultV2> => {
      try {
        const principal = requireScope(event.requestContext?.authorizer?.lambda, PLANTS_READ);
        log.set({ tokenId: principal.tokenId });
        const id = readPlantId(event);
        log.set({ plantId: String(id) });
        const plant = await getPlant(plants, id);
        log.outcome('read');
        return jsonResponse(200, plant);
      } catch (error) {
        return errorResponse(error, log);
      }
    },
  );
}

/** Reads the configuration once, at cold start; a missing variable fails the start, by name. */
export const fromEnvironment = plantsTableFromEnvironment;
