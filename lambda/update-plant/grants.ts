/** What update-plant is given (the registry's entry reads it; its handler's store is narrowed to it). */
export const UPDATE_PLANT_GRANTS = {
  tables: { plants: ['update'] },
} as const;
