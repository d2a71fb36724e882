/** DELETE /plants/{id}: an adapter from the HTTP API event to `deletePlant` and back. */
import { readPreconditions } from '../plants/conditional';
import { emptyResponse } from '../http/answers';
import { plantsHandler } from '../plants/handler';
import { remove } from '../plants/store/change';
import { PLANTS_DELETE } from '../tokens/principal';
import { readPlantId } from '../plants/request';
import { deletePlant } from './delete-plant';
import { DELETE_PLANT_GRANTS } from './grants';

/** Builds the handler around its dependencies, so tests can inject theirs. */
export const makeDeletePlantHandler = plantsHandler<typeof DELETE_PLANT_GRANTS.tables.plants>(
  PLANTS_DELETE,
  { delete: remove },
  async ({ event, plants, log }) => {
    const id = readPlantId(event);
    // A deletion cannot be undone: the log line keeps who deleted what.
    log.set({ plantId: String(id) });
    await deletePlant(plants, id, readPreconditions(event));
    return { outcome: 'deleted', response: emptyResponse(204) };
  },
);
