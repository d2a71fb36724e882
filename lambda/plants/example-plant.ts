/**
 * The plant every example shows: the API reference's examples (each operation's `openapi.ts`) and the
 * body of `npm run webhook -- test`'s delivery. Its id is beyond 2^53, which a float64 would round.
 */
export const EXAMPLE_PLANT = { id: 9007199254740993n, name: 'Monstera', tag: 'aroid' } as const;
