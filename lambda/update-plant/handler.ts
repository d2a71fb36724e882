/** PUT /plants/{id}: the change handler, reading its body with `readReplacement`. */
import { changeHandler } from '../plants/change-handler';
import { readReplacement } from './request';

/** Builds the handler around its dependencies, so tests can inject theirs. */
export const makeUpdatePlantHandler = changeHandler(readReplacement);
