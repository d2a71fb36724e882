/** What delete-plant is given (the registry's entry reads it; its handler's store is narrowed to it). */
export const DELETE_PLANT_GRANTS = {
  tables: { plants: ['delete'] },
} as const;
