/** The delete-plant function's entry point: configuration and client are built once, at cold start. */
import { fromEnvironment, makeDeletePlantHandler } from './handler';

export const handler = makeDeletePlantHandler(fromEnvironment());
