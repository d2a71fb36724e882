/** PATCH /plants/{id}: the change operation, reading its body with `readPatch`. */
import { changeOperation } from '../plants/change-operation';
import { plantsHandler } from '../plants/handler';
import { update } from '../plants/store/change';
import { CHANGE_NEED } from '../tokens/principal';
import { PATCH_PLANT_GRANTS } from './grants';
import { readPatch } from './request';

/** Builds the handler around its dependencies, so tests can inject theirs. */
export const makePatchPlantHandler = plantsHandler<typeof PATCH_PLANT_GRANTS.tables.plants>(
  CHANGE_NEED,
  { update },
  changeOperation(readPatch),
);
