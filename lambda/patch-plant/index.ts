/** The patch-plant function's entry point: configuration and client are built once, at cold start. */
import { plantsTableFromEnvironment } from '../plants/table';
import { makePatchPlantHandler } from './handler';

export const handler = makePatchPlantHandler(plantsTableFromEnvironment());
