/**
 * The stage throttle as API Gateway documents it: a token bucket per stage that holds at most
 * `burstLimit` tokens and refills at `rateLimit` tokens a second; each request takes one, and a
 * request that finds the bucket empty is answered 429 `{"message":"Too Many Requests"}`. The
 * bucket starts full, so a burst of `burstLimit` requests passes at once.
 */

/** A stage's throttle settings, as the stack passes them to the `$default` stage. */
export interface ThrottleSettings {
  /** Tokens added per second (steady-state requests per second). */
  readonly rateLimit: number;
  /** The bucket's size (requests accepted at once after a quiet spell). */
  readonly burstLimit: number;
}

/** One bucket; `take` answers whether a request may pass now. */
export class TokenBucket {
  private tokens: number;
  private updated: number;

  constructor(
    private readonly settings: ThrottleSettings,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.tokens = settings.burstLimit;
    this.updated = now();
  }

  /** Takes one token if there is one. */
  take(): boolean {
    const now = this.now();
    const refill = ((now - this.updated) / 1000) * this.settings.rateLimit;
    this.tokens = Math.min(this.settings.burstLimit, this.tokens + refill);
    this.updated = now;
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
  }

  /** Returns a token taken for a request the throttle does not cover. */
  giveBack(): void {
    this.tokens = Math.min(this.settings.burstLimit, this.tokens + 1);
  }
}
