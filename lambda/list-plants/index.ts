/** The list-plants function's entry point: configuration and client are built once, at cold start. */
import { plantsTableFromEnvironment } from '../plants/table';
import { makeListPlantsHandler } from './handler';

export const handler = makeListPlantsHandler(plantsTableFromEnvironment());
