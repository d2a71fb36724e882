/** PATCH /plants/{id}: the change handler, reading its body with `readPatch`. */
import { changeHandler } from '../plants/change-handler';
import { readPatch } from './request';

/** Builds the handler around its dependencies, so tests can inject theirs. */
export const makePatchPlantHandler = changeHandler(readPatch);
