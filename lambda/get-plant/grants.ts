/** What get-plant is given (the registry's entry reads it; its handler's store is narrowed to it). */
export const GET_PLANT_GRANTS = {
  tables: { plants: ['get'] },
} as const;
