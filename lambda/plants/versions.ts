/**
 * A plant's version and the HTTP validators made of it (RFC 9110 section 8.8.3 and 13.1): the
 * `ETag` a read or a change answers, and the `If-Match` / `If-None-Match` a request sends.
 */
import { BadRequest } from '../http/answers';

/** The version of a plant that was never changed, and of every item stored before versions existed. */
export const FIRST_VERSION = 1;

/** The strong entity tag of a version: `"3"`. */
export function etagOf(version: number): string {
  return `"${version}"`;
}

/** What a request's `If-Match` or `If-None-Match` names: any version (`*`), or these. */
export type Validators =
  { readonly any: true } | { readonly any: false; readonly versions: readonly number[] };

/** One entity tag of a list, after optional whitespace and commas (RFC 9110's `#entity-tag`). */
const ENTITY_TAG = /^[\t ,]*(W\/)?"([\x21\x23-\x7e\x80-\xff]*)"[\t ]*(?:,|$)/;
/** The most entity tags a header may list. */
export const MAX_TAGS = 20;
/** What a version looks like inside its tag: a positive decimal integer a number holds exactly. */
const VERSION_TEXT = /^[1-9]\d{0,14}$/;

/**
 * The versions a header names, or `undefined` when the request has none. `weak`: whether a
 * weak tag (`W/"3"`) names its version (the weak comparison of `If-None-Match`) or names
 * nothing (the strong comparison of `If-Match`). A tag that is not a version of ours names
 * nothing; a value that is no list of entity tags is a 400.
 */
export function readValidators(
  name: 'If-Match' | 'If-None-Match',
  value: string | undefined,
  weak: boolean,
): Validators | undefined {
  if (value === undefined) return undefined;
  if (value.trim() === '*') return { any: true };
  const malformed = () => new BadRequest(`${name}: must be * or a list of entity tags such as "3"`);
  if (value.replace(/[\t ,]/g, '') === '') throw malformed();
  const versions = new Set<number>();
  let tags = 0;
  for (let rest = value; rest.replace(/[\t ,]/g, '') !== ''; tags++) {
    const tag = ENTITY_TAG.exec(rest);
    if (!tag) throw malformed();
    if ((weak || !tag[1]) && VERSION_TEXT.test(tag[2]!)) versions.add(Number(tag[2]));
    rest = rest.slice(tag[0].length);
  }
  // Each version is a term of the write's condition, whose expression DynamoDB bounds.
  if (tags > MAX_TAGS) throw new BadRequest(`${name}: must name at most ${MAX_TAGS} entity tags`);
  return { any: false, versions: [...versions] };
}

/** Whether the validators name `version`. */
export function names(validators: Validators, version: number): boolean {
  return validators.any || validators.versions.includes(version);
}
