/** What list-plants is given (the registry's entry reads it; its handler's store is narrowed to it). */
export const LIST_PLANTS_GRANTS = {
  tables: { plants: ['scan', 'queryByTag'] },
} as const;
