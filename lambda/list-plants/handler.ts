/** GET /plants: an adapter from the HTTP API event to `listPlants` and back. */
import { jsonResponse } from '../http/answers';
import { plantsHandler } from '../plants/handler';
import { queryByTag, scan } from '../plants/store/list';
import { PLANTS_READ } from '../tokens/principal';
import { readPageQuery } from '../plants/request';
import { listPlants } from './list-plants';
import { LIST_PLANTS_GRANTS } from './grants';

/** Builds the handler around its dependencies, so tests can inject theirs. */
export const makeListPlantsHandler = plantsHandler<typeof LIST_PLANTS_GRANTS.tables.plants>(
  PLANTS_READ,
  { scan, queryByTag },
  async ({ event, plants }) => {
    const page = await listPlants(plants, readPageQuery(event));
    return { outcome: 'listed', response: jsonResponse(200, page) };
  },
);
