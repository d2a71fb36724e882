/** The get-plant function's entry point: configuration and client are built once, at cold start. */
import { plantsTableFromEnvironment } from '../plants/table';
import { makeGetPlantHandler } from './handler';

export const handler = makeGetPlantHandler(plantsTableFromEnvironment());
