/**
 * What a receiver's answer says about the subscriber, besides this one delivery: 410 Gone
 * disables it at once; 429, 502, 504 and silence (a timeout) ask us to slow down; a run of
 * nothing but failures warns the operator at its 4th attempt and disables the subscriber once
 * it has lasted 5 days (Svix's window; our schedule gives up each delivery after about 3 days,
 * so a receiver down for good has its first days' deliveries dead-lettered before that). A
 * disabled subscriber receives nothing until `webhook enable`.
 */
import type { Attempt } from '../deliver/post';

/** How long a run of nothing but failures lasts before the subscriber is disabled: 5 days. */
export const DISABLE_AFTER_FAILING_SECONDS = 5 * 24 * 3600;

/** The failed attempt in a row at which the operator is warned (as Svix does). */
export const WARN_AT_CONSECUTIVE_FAILURES = 4;

/** How many of a subscriber's latest attempts its item keeps for `webhook attempts`. */
export const RECENT_ATTEMPTS_KEPT = 20;

/** Statuses that ask us to slow down (Standard Webhooks: 429, 502, 504). */
const SLOW_DOWN_STATUSES: ReadonlySet<number> = new Set([429, 502, 504]);

/** The reason names of the statuses a disable can name (`410 Gone`). */
const STATUS_TEXT: Readonly<Record<number, string>> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  410: 'Gone',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
  504: 'Gateway Timeout',
};

/** A status with its reason phrase where we know it: `410 Gone`, `418`. */
export function statusText(status: number): string {
  const text = STATUS_TEXT[status];
  return text ? `${status} ${text}` : String(status);
}

/** The receiver said it is gone for good. */
export function isGone(attempt: Attempt): boolean {
  return 'status' in attempt && attempt.status === 410;
}

/** The receiver asked us, by its answer or its silence, to slow down. */
export function asksToSlowDown(attempt: Attempt): boolean {
  return 'status' in attempt
    ? SLOW_DOWN_STATUSES.has(attempt.status)
    : /^no answer within/.test(attempt.failure);
}

/** How an attempt reads in `list` and `attempts`: the status with its phrase, or the failure. */
export function attemptText(attempt: Attempt): string {
  return 'status' in attempt ? statusText(attempt.status) : attempt.failure;
}
