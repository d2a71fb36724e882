/** The list-plants function's entry point: configuration and client are built once, at cold start. */
import { fromEnvironment, makeListPlantsHandler } from './handler';

export const handler = makeListPlantsHandler(fromEnvironment());
