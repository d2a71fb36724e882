/** The fan-out function's entry point: configuration and clients are built once, at cold start. */
import { fromEnvironment, makeFanOutHandler } from './handler';

export const handler = makeFanOutHandler(fromEnvironment());
