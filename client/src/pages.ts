/**
 * Walking the list a page at a time. The API's cursor is opaque and stays valid: a walk that
 * stopped (a crash, a deploy) resumes from the last `next` it saved.
 */
import type { components } from './schema.js';

/** One page of the list: `plants`, and `next` while more may follow. */
export type PlantPage = components['schemas']['PlantPage'];

/**
 * Each page from `cursor` (the beginning when absent) until one has no `next`; a page may be
 * short, even empty, while `next` is present.
 */
export async function* walkPages(
  fetchPage: (cursor: string | undefined) => Promise<PlantPage>,
  cursor?: string,
): AsyncGenerator<PlantPage, void, undefined> {
  do {
    const page = await fetchPage(cursor);
    yield page;
    cursor = page.next;
  } while (cursor !== undefined);
}
