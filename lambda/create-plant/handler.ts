/** POST /plants: an adapter from the HTTP API event to `createPlant` and back. */
import type {
  APIGatewayProxyEventV2WithLambdaAuthorizer,
  APIGatewayProxyStructuredResultV2,
} from 'aws-lambda';
import { errorResponse, jsonResponse } from '../shared/http';
import {
  PlantsTable,
  plantsTableFromEnvironment,
  type PlantsTableDeps,
} from '../shared/plants-table';
import { withObservability } from '../shared/observability';
import { PLANTS_WRITE, requireScope } from '../shared/principal';
import type { Plant } from '../shared/schemas';
import { createPlant } from './create-plant';
import { readNewPlant } from './request';

/** What the handler needs: a document client and the plants table's name. */
export type CreatePlantDeps = PlantsTableDeps;

/** The event: payload 2.0 with the authorizer's context, which may be missing when invoked directly. */
export type CreatePlantEvent = APIGatewayProxyEventV2WithLambdaAuthorizer<unknown>;

/** Builds the handler around its dependencies, so tests can inject theirs. */
export function makeCreatePlantHandler(deps: CreatePlantDeps) {
  const plants = new PlantsTable(deps.plants, deps.tableName);
  return withObservability(
    async (event: CreatePlantEvent, log): Promise<APIGatewayProxyStructuredResultV2> => {
      try {
        const principal = requireScope(event.requestContext?.authorizer?.lambda, PLANTS_WRITE);
        log.set({ tokenId: principal.tokenId });
        const plant = readNewPlant(event);
        log.set({ plantId: String(plant.id) });
        log.outcome(await createPlant(plants, plant, principal.tokenId));
        const answer: Plant =
          plant.tag === undefined ? { name: plant.name } : { name: plant.name, tag: plant.tag };
        return jsonResponse(200, answer);
      } catch (error) {
        return errorResponse(error, log);
      }
    },
  );
}

/** Reads the configuration once, at cold start; a missing variable fails the start, by name. */
export const fromEnvironment = plantsTableFromEnvironment;
