/** PUT /plants/{id}: the change operation, reading its body with `readReplacement`. */
import { changeOperation } from '../plants/change-operation';
import { plantsHandler } from '../plants/handler';
import { update } from '../plants/store/change';
import { CHANGE_NEED } from '../tokens/principal';
import { UPDATE_PLANT_GRANTS } from './grants';
import { readReplacement } from './request';

/** Builds the handler around its dependencies, so tests can inject theirs. */
export const makeUpdatePlantHandler = plantsHandler<typeof UPDATE_PLANT_GRANTS.tables.plants>(
  CHANGE_NEED,
  { update },
  changeOperation(readReplacement),
);
