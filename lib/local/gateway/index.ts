/**
 * The local HTTP API: an HTTP server that answers as API Gateway's HTTP API does.
 * This path stays the one the runtime and the tests import.
 */
export { type Answer, mapFunctionAnswer } from './answers';
export { MAX_REQUEST_LINE_AND_HEADER_BYTES } from './header-limit';
export { Gateway, type GatewayOptions, type Invoke, type LocalPages } from './server';
