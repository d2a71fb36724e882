/**
 * A plant's version: the API answers it as `ETag: "<version>"` on a read and a change, and a
 * change or a delete sends it back as `If-Match` to apply only to that version (a 412,
 * `PreconditionFailedError`, when the plant has moved on).
 */

/** A version to match: the number a read answered (`plant.version`), several, or `'*'` (any). */
export type IfMatch = number | readonly number[] | '*';

/** The `If-Match` header for `ifMatch`: `"3"`, `"3", "4"` or `*`. */
export function ifMatchHeader(ifMatch: IfMatch): string {
  if (ifMatch === '*') return '*';
  // From JavaScript any value may come: only a number or an array of them is read further.
  const versions: readonly unknown[] =
    typeof ifMatch === 'number' ? [ifMatch] : Array.isArray(ifMatch) ? ifMatch : [];
  if (versions.length === 0 || !versions.every((v) => Number.isSafeInteger(v) && Number(v) >= 1)) {
    throw new TypeError(
      `ifMatch must be '*' or versions (positive integers), not ${String(ifMatch)}`,
    );
  }
  return versions.map((version) => `"${version}"`).join(', ');
}

/**
 * The version an `ETag` names: `"4"`, or `W/"4"` as a proxy that compresses the answer marks it
 * (the plant is the same; a change sends it back as `"4"`); `undefined` when it is not one of ours.
 */
export function versionOf(etag: string): number | undefined {
  const digits = /^(?:W\/)?"([1-9]\d{0,14})"$/.exec(etag)?.[1];
  return digits === undefined ? undefined : Number(digits);
}
