/** The create-plant function's entry point: configuration and client are built once, at cold start. */
import { fromEnvironment, makeCreatePlantHandler } from './handler';

export const handler = makeCreatePlantHandler(fromEnvironment());
