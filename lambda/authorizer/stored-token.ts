/**
 * The token item as the authorizer trusts it. Whoever can write the tokens table could store a
 * malformed item (a string `expiresAt` would never expire: `'soon' * 1000 <= now` is false, and
 * DynamoDB's TTL ignores non-numbers), so every field the check relies on is validated here,
 * once, and an item that fails is denied.
 */
import { NumberValue } from '@aws-sdk/lib-dynamodb';
import * as v from 'valibot';
import { ScopesRevision, UNSTORED_SCOPES_REVISION } from '../tokens/principal';

/** A number, as the document client reads one (`NumberValue`) or as a plain number. */
const StoredNumber = v.pipe(
  v.union([v.number(), v.instance(NumberValue)]),
  v.transform((value) => (typeof value === 'number' ? value : Number(value.value))),
);

/** Epoch seconds. */
const EpochSeconds = v.pipe(StoredNumber, v.finite());

/** What the scopes mean (`SCOPES_REVISION`). */
const StoredScopesRevision = v.pipe(StoredNumber, ScopesRevision);

/** A scope: non-empty, no whitespace (the context joins scopes with spaces). */
const Scope = v.pipe(v.string(), v.regex(/^\S+$/));

/** The fields the authorizer reads; a list or a string set of scopes becomes a list. */
export const StoredToken = v.object({
  tokenId: v.string(),
  name: v.string(),
  scopes: v.pipe(
    v.union([v.array(Scope), v.set(Scope)]),
    v.transform((scopes): readonly string[] => [...scopes]),
  ),
  expiresAt: v.optional(EpochSeconds),
  scopesRevision: v.optional(StoredScopesRevision, UNSTORED_SCOPES_REVISION),
});
export type StoredToken = v.InferOutput<typeof StoredToken>;
