/** The create-plant function's entry point: configuration and client are built once, at cold start. */
import { plantsTableFromEnvironment } from '../plants/table';
import { makeCreatePlantHandler } from './handler';

export const handler = makeCreatePlantHandler(plantsTableFromEnvironment());
