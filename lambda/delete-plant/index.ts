/** The delete-plant function's entry point: configuration and client are built once, at cold start. */
import { plantsTableFromEnvironment } from '../plants/table';
import { makeDeletePlantHandler } from './handler';

export const handler = makeDeletePlantHandler(plantsTableFromEnvironment());
