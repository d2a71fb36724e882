/**
 * Bundled in place of `@smithy/core/event-streams` (see `lib/definitions/bundling.ts`). The SDK reaches that
 * module only through a dynamic `import()` for operations with event-stream members, which
 * DynamoDB has none of; its mere presence made esbuild wrap ~150 shared modules in lazy
 * initialisers, slowing every cold start. Should an operation ever take that path, it fails loudly.
 */
throw new Error(
  '@smithy/core/event-streams is not bundled: DynamoDB has no event-stream operation',
);

export {};
