/** GET /plants/{id}: an adapter from the HTTP API event to `getPlant` and back. */
import { plantResponse, readPreconditions, requireMatch } from '../plants/conditional';
import { etagOf, names } from '../plants/versions';
import { emptyResponse } from '../http/answers';
import { plantsHandler } from '../plants/handler';
import { get } from '../plants/store/get';
import { PLANTS_READ } from '../tokens/principal';
import { readPlantId } from '../plants/request';
import { getPlant } from './get-plant';
import { GET_PLANT_GRANTS } from './grants';

/** Builds the handler around its dependencies, so tests can inject theirs. */
export const makeGetPlantHandler = plantsHandler<typeof GET_PLANT_GRANTS.tables.plants>(
  PLANTS_READ,
  { get },
  async ({ event, plants, log }) => {
    const id = readPlantId(event);
    log.set({ plantId: String(id) });
    const { ifMatch, ifNoneMatch } = readPreconditions(event);
    const plant = await getPlant(plants, id);
    requireMatch(id, ifMatch, plant.version);
    if (ifNoneMatch && names(ifNoneMatch, plant.version)) {
      return {
        outcome: 'not-modified',
        response: emptyResponse(304, { etag: etagOf(plant.version) }),
      };
    }
    return { outcome: 'read', response: plantResponse(plant) };
  },
);
