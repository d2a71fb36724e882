/** The authorizer function's entry point: configuration and client are built once, at cold start. */
import { fromEnvironment, makeAuthorizerHandler } from './handler';

export const handler = makeAuthorizerHandler(fromEnvironment());
