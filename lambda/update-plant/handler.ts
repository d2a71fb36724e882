/** PUT /plants/{id}: the change operation, reading its body with `readReplacement`. */
import { changeOperation } from '../plants/change-operation';
import { plantsHandler } from '../plants/handler';
import { PLANTS_WRITE } from '../tokens/principal';
import { UPDATE_PLANT_GRANTS } from './grants';
import { readReplacement } from './request';

/** Builds the handler around its dependencies, so tests can inject theirs. */
export const makeUpdatePlantHandler = plantsHandler<typeof UPDATE_PLANT_GRANTS.tables.plants>(
  PLANTS_WRITE,
  changeOperation(readReplacement),
);
