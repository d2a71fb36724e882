/** GET /plants/{id}: an adapter from the HTTP API event to `getPlant` and back. */
import { jsonResponse } from '../http/answers';
import { plantsHandler } from '../plants/handler';
import { PLANTS_READ } from '../tokens/principal';
import { readPlantId } from '../plants/request';
import { getPlant } from './get-plant';

/** Builds the handler around its dependencies, so tests can inject theirs. */
export const makeGetPlantHandler = plantsHandler(PLANTS_READ, async ({ event, plants, log }) => {
  const id = readPlantId(event);
  log.set({ plantId: String(id) });
  return { outcome: 'read', response: jsonResponse(200, await getPlant(plants, id)) };
});
