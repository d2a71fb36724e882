/** What the deliverer is given (the registry's entry reads it; its stores are narrowed to it). */
export const DELIVER_GRANTS = {
  // Who the subscriber is, and what the deliverer learns of its receiver (its grid's slots,
  // failures, disabling, where `enable` replays from, its latest attempts): GetItem and
  // UpdateItem on the subscriber's items. `get` only serves a handler built without a gate.
  tables: {
    subscriptions: [
      'get',
      'read',
      'grant',
      'holdUntil',
      'record',
      'showAttempts',
      'recentAttempts',
      'disable',
      'keepForReplay',
    ],
  },
  // A failed attempt's next copy or a wait on the delivery queue; the last one's dead letter.
  queues: { deliveries: ['send', 'retryAfter'], deadLetters: ['deadLetter'] },
  keys: { secrets: ['open'] },
} as const;
