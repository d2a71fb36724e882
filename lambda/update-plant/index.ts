/** The update-plant function's entry point: configuration and client are built once, at cold start. */
import { plantsTableFromEnvironment } from '../plants/table';
import { makeUpdatePlantHandler } from './handler';

export const handler = makeUpdatePlantHandler(plantsTableFromEnvironment());
