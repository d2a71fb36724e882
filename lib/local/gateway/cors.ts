/**
 * CORS as HTTP API configures it: preflights answered 204 by the gateway itself, and the
 * allowed origin added to every other answer, the gateway's own errors included.
 */
import type { ApiDefinition } from '../../definitions/api';
import type { Answer } from './answers';

/** The CORS settings of one gateway. */
export class Cors {
  constructor(
    private readonly cors: ApiDefinition['cors'],
    private readonly origins: readonly string[],
  ) {}

  /** A preflight: `OPTIONS` carrying `Origin` and `Access-Control-Request-Method`. */
  static isPreflight(method: string, headers: Readonly<Record<string, unknown>>): boolean {
    return method === 'OPTIONS' && !!headers.origin && !!headers['access-control-request-method'];
  }

  /** Headers added to every answer but the preflight's own. */
  headers(requestOrigin: string | undefined): Record<string, string> {
    const origin = this.allowedOrigin(requestOrigin);
    if (!origin) return {};
    const expose = { 'access-control-expose-headers': this.cors.exposeHeaders.join(',') };
    return origin === '*'
      ? { 'access-control-allow-origin': '*', ...expose }
      : { 'access-control-allow-origin': origin, vary: 'origin', ...expose };
  }

  /** The preflight's answer: 204, with the configured headers when the origin is allowed. */
  preflight(requestOrigin: string | undefined): Answer {
    const allowed = this.allowedOrigin(requestOrigin);
    return {
      status: 204,
      headers: allowed
        ? {
            'access-control-allow-methods': this.cors.allowMethods.join(','),
            'access-control-allow-headers': this.cors.allowHeaders.join(','),
            'access-control-max-age': String(this.cors.maxAgeSeconds),
          }
        : {},
      body: Buffer.alloc(0),
    };
  }

  private allowedOrigin(origin: string | undefined): string | undefined {
    if (this.origins.includes('*')) return '*';
    return origin && this.origins.includes(origin) ? origin : undefined;
  }
}
