/** POST /plants: an adapter from the HTTP API event to `createPlant` and back. */
import { jsonResponse } from '../http/answers';
import { plantsHandler, type PlantsHandlerDeps } from '../plants/handler';
import { putNew } from '../plants/store/put-new';
import { PLANTS_WRITE } from '../tokens/principal';
import type { PlantsEvent } from '../plants/request';
import { plantMembers, type Plant } from '../plants/schemas';
import { createPlant } from './create-plant';
import { readNewPlant } from './request';
import { CREATE_PLANT_GRANTS } from './grants';

/** What the handler needs: the plants table, or a document client and the table's name. */
export type CreatePlantDeps = PlantsHandlerDeps;

/** The event: payload 2.0 with the authorizer's context, which may be missing when invoked directly. */
export type CreatePlantEvent = PlantsEvent;

/** Builds the handler around its dependencies, so tests can inject theirs. */
export const makeCreatePlantHandler = plantsHandler<typeof CREATE_PLANT_GRANTS.tables.plants>(
  PLANTS_WRITE,
  { putNew },
  async ({ event, plants, principal, log }) => {
    const plant = readNewPlant(event);
    log.set({ plantId: String(plant.id) });
    const outcome = await createPlant(plants, plant, principal.tokenId);
    const answer: Plant = plantMembers(plant);
    return { outcome, response: jsonResponse(200, answer) };
  },
);
