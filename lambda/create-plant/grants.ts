/** What create-plant is given (the registry's entry reads it; its handler's store is narrowed to it). */
export const CREATE_PLANT_GRANTS = {
  tables: { plants: ['putNew'] },
} as const;
