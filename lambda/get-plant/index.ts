/** The get-plant function's entry point: configuration and client are built once, at cold start. */
import { fromEnvironment, makeGetPlantHandler } from './handler';

export const handler = makeGetPlantHandler(fromEnvironment());
