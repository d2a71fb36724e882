/** What the fan-out is given (the registry's entry reads it; its stores are narrowed to it). */
export const FAN_OUT_GRANTS = {
  tables: { subscriptions: ['list'] },
  queues: { deliveries: ['sendBatch'], streamFailures: ['put'] },
} as const;
