/** What the authorizer is given (the registry's entry reads it; its handler's store is narrowed to it). */
export const AUTHORIZER_GRANTS = {
  tables: { tokens: ['get'] },
} as const;
