/** The deliver function's entry point: configuration and clients are built once, at cold start. */
import { fromEnvironment, makeDeliverHandler } from './handler';

export const handler = makeDeliverHandler(fromEnvironment());
