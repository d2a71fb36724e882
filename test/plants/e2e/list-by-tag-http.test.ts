/**
 * GET /plants?tag=T over real HTTP against the local runtime (`startLocal`, as `npm start` runs
 * it): that tag's plants in id order with every digit at the int64 limits, a walk across pages,
 * each cursor mismatch 400 in the contract's Error shape, a tag's rules, deleted plants and a tag
 * removed by PATCH gone from the list; and, with a registry that does not give list-plants the
 * index, the Query refused by the local IAM on the index's ARN, as AWS refuses it.
 */
import { parseJson } from '../../../lambda/http/json';
import { PLANTS_BY_TAG_INDEX } from '../../../lambda/aws/tables';
import { sendAsDev, useLocalService } from '../../support/local-service';

const MIN = '-9223372036854775808';
const MAX = '9223372036854775807';
const SAME_LIST =
  '{"error":400,"message":"cursor: must be the next value of a previous page of the same list (the same tag, or none)"}';
type Page = { plants: { id: bigint; tag?: string }[]; next?: string };

const service = useLocalService('e2e-by-tag');
const lines: string[] = [];
const ungranted = useLocalService('e2e-by-tag-ungranted', {
  grants: { 'list-plants': { tables: { plants: ['scan'] } } },
  log: (line) => lines.push(line),
});

/** Creates a plant over HTTP, its id written as JSON text with every digit. */
async function create(id: string, tag?: string) {
  const body = `{"id":${id},"name":"p${id}"${tag === undefined ? '' : `,"tag":${JSON.stringify(tag)}`}}`;
  expect((await sendAsDev(service, 'POST', '/plants', body)).status).toBe(200);
}
const list = (query: string) => sendAsDev(service, 'GET', `/plants?${query}`);

/** Every id of `tag`'s walk at `limit` a page, as exact text. */
async function walk(tag: string, limit: number): Promise<{ ids: string[]; pages: number }> {
  const ids: string[] = [];
  let cursor: string | undefined;
  let pages = 0;
  do {
    const answer = await list(
      new URLSearchParams({ tag, limit: String(limit), ...(cursor ? { cursor } : {}) }).toString(),
    );
    expect(answer.status).toBe(200);
    const page = parseJson(answer.text) as unknown as Page;
    ids.push(...page.plants.map((plant) => String(plant.id)));
    cursor = page.next;
    pages++;
  } while (cursor !== undefined);
  return { ids, pages };
}

it('the int64 limits and the ids next to 2^53, in id order, every digit', async () => {
  for (const id of [MAX, '9007199254740993', '9007199254740992', MIN]) await create(id, 'edge');
  await create('1', 'other');
  const answer = await list('tag=edge');
  expect(answer).toEqual({
    status: 200,
    text: `{"plants":[{"id":${MIN},"name":"p${MIN}","tag":"edge"},{"id":9007199254740992,"name":"p9007199254740992","tag":"edge"},{"id":9007199254740993,"name":"p9007199254740993","tag":"edge"},{"id":${MAX},"name":"p${MAX}","tag":"edge"}]}`,
  });
});

it('a walk of 2 a page crosses 3 pages and keeps its tag; a percent-encoded tag is that tag', async () => {
  for (const id of ['10', '11', '12', '13', '14']) await create(id, 'two words/ü');
  const { ids, pages } = await walk('two words/ü', 2);
  expect(ids).toEqual(['10', '11', '12', '13', '14']);
  expect(pages).toBe(3);
});

it('a cursor of another list is 400 in the Error shape, whichever way it is mismatched', async () => {
  const tagged = parseJson((await list('tag=two%20words%2F%C3%BC&limit=1')).text) as Page;
  const plain = parseJson((await list('limit=1')).text) as Page;
  expect(await list(`tag=edge&cursor=${tagged.next}`)).toEqual({ status: 400, text: SAME_LIST });
  expect(await list(`cursor=${tagged.next}`)).toEqual({ status: 400, text: SAME_LIST });
  expect(await list(`tag=edge&cursor=${plain.next}`)).toEqual({ status: 400, text: SAME_LIST });
  expect(await list('tag=&limit=5')).toEqual({
    status: 400,
    text: '{"error":400,"message":"tag: must not be empty, and at most 2048 bytes in UTF-8"}',
  });
});

it('deleted plants and a tag removed by PATCH leave the list', async () => {
  for (const id of ['20', '21', '22']) await create(id, 'leaving');
  expect((await sendAsDev(service, 'DELETE', '/plants/20')).status).toBe(204);
  expect((await sendAsDev(service, 'PATCH', '/plants/21', '{"tag":null}')).status).toBe(200);
  expect((await walk('leaving', 1)).ids).toEqual(['22']);
});

it('without the index granted, list-plants’ Query is refused on the index ARN; the plain list still answers', async () => {
  const refused = await sendAsDev(ungranted, 'GET', '/plants?tag=edge');
  expect(refused.status).toBe(500);
  expect(lines.filter((line) => line.includes('[iam] denied'))).toEqual([
    `[iam] denied: list-plants may not dynamodb:Query on arn:aws:dynamodb:local:000000000000:table/plants/index/${PLANTS_BY_TAG_INDEX.name}`,
  ]);
  expect((await sendAsDev(ungranted, 'GET', '/plants')).status).toBe(200);
});
