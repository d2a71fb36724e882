/** `npm run webhook`'s command line: help, and one-line errors before anything is reached. */
import { fieldText } from '../../../lib/cli/args';
import { runWebhookCli, WEBHOOK_HELP } from '../../../lib/operator/webhook/cli';
import { listRows, shownUrl } from '../../../lib/operator/webhook/receivers';

async function run(...argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runWebhookCli(argv, {
    out: (line) => out.push(line),
    err: (line) => err.push(line),
    env: {},
  });
  return { code, out, err };
}

it('prints its help', async () => {
  expect(await run('--help')).toEqual({ code: 0, out: [WEBHOOK_HELP], err: [] });
  expect(WEBHOOK_HELP).toMatch(/add --url <url> \[--name <label>\]/);
});

it.each([
  [
    [],
    'a command is required: add, update, list, remove, attempts, enable, rotate, replay, test, dead-letters or listen',
  ],
  [['frobnicate'], 'unknown command frobnicate'],
  [['add'], 'add needs --url <url>'],
  [['add', '--url', 'not a url'], '--url must be an absolute URL, not not a url'],
  [['add', '--url', 'ftp://example.com/'], '--url must be http or https, not ftp'],
  [
    ['add', '--aws', '--table', 'T', '--url', 'http://example.com/'],
    '--url must be https, not http',
  ],
  [
    ['add', '--aws', '--table', 'T', '--url', 'https://10.0.0.1/'],
    '--url: 10.0.0.1 is not a public address',
  ],
  [
    ['add', '--aws', '--table', 'T', '--url', 'https://[::1]/'],
    '--url: ::1 is not a public address',
  ],
  [
    ['add', '--aws', '--table', 'T', '--url', 'https://example.com/', '--id', 'sub_x'],
    '--id goes without --aws',
  ],
  [
    ['add', '--url', 'http://127.0.0.1:4000/', '--id', 'sub x'],
    '--id must be sub_ and 1 to 64 letters, digits, _ or -, not sub x',
  ],
  [['remove'], 'remove needs exactly one subscriberId'],
  [['list', '--table', 'T'], '--table, --plants-table, --queue and --region go with --aws'],
  [['dead-letters', '--aws'], 'dead-letters --aws needs --queue <DeadLetterQueueUrl>'],
  [['listen'], 'listen needs the secret in $PLANT_STORE_WEBHOOK_SECRET'],
  [['listen', '--secret', 'whsec_x'], 'unknown option --secret'],
  [['list', '--bogus'], 'unknown option --bogus'],
  [['update', 'sub_x'], 'update needs --rate <per second> or --events <names>'],
  [
    ['update', 'sub_x', '--events', 'newPlant,plantMoved'],
    '--events: unknown event plantMoved; choose from newPlant, plantUpdated, plantDeleted',
  ],
  [
    ['add', '--url', 'http://127.0.0.1:4000/', '--events', ''],
    '--events: unknown event (empty); choose from newPlant, plantUpdated, plantDeleted',
  ],
  [['update'], 'update needs exactly one subscriberId'],
  [
    ['update', 'sub_x', '--rate', '0'],
    '--rate must be a number of requests per second from 0.01 to 1000, not 0',
  ],
  [
    ['add', '--url', 'http://127.0.0.1:4000/', '--rate', 'fast'],
    '--rate must be a number of requests per second from 0.01 to 1000, not fast',
  ],
  [['attempts'], 'attempts needs exactly one subscriberId'],
])('%j is one line and exit code 2', async (argv, message) => {
  expect(await run(...argv)).toEqual({
    code: 2,
    out: [],
    err: [`webhook: ${message} (see npm run webhook -- --help)`],
  });
});

it('list shows a URL’s scheme and host and its path as /…, whole with --show-urls', () => {
  expect(shownUrl('https://hooks.example.com/')).toBe('https://hooks.example.com/');
  expect(shownUrl('https://hooks.example.com:8443/t/0ken?sig=abc#x')).toBe(
    'https://hooks.example.com:8443/…',
  );
  expect(shownUrl('http://127.0.0.1:4000/?key=secret')).toBe('http://127.0.0.1:4000/…');
  const subscriber = {
    subscriberId: 'sub_1',
    name: 'hook',
    url: 'https://hooks.example.com/t/0ken?sig=abc',
    createdAt: '2026-01-01',
  };
  const column = (rows: string[][]) => rows[1]![rows[0]!.indexOf('url')];
  expect(column(listRows([subscriber], new Map()))).toBe('https://hooks.example.com/…');
  expect(column(listRows([subscriber], new Map(), undefined, true))).toBe(subscriber.url);
});

it('list prints a name as token list does: as typed, unquoted, a control character as a space', () => {
  const name = 'my "main"\thook\nv2';
  const [header, row] = listRows(
    [{ subscriberId: 'sub_1', name, url: 'http://127.0.0.1:4000/', createdAt: '2026-01-01' }],
    new Map(),
  );
  expect(row![header!.indexOf('name')]).toBe('my "main" hook v2');
  expect(fieldText(name)).toBe('my "main" hook v2');
});

it('list shows a rotation only while it overlaps, in its own column', () => {
  const at = '2026-01-02T00:00:00.000Z';
  const subscriber = (rotationEndsAt: string) => ({
    subscriberId: 'sub_1',
    name: 'hook',
    url: 'http://127.0.0.1:4000/',
    createdAt: '2026-01-01',
    rotationEndsAt,
  });
  const [header, running, ended] = listRows(
    [subscriber('2026-01-02T12:00:00.000Z'), subscriber('2026-01-01T12:00:00.000Z')],
    new Map(),
    at,
  );
  const column = header!.indexOf('rotationEnds');
  expect(header).toEqual([
    'subscriberId',
    'name',
    'url',
    'created',
    'rotationEnds',
    'rate',
    'state',
    'failures',
    'events',
  ]);
  expect([running![column], ended![column]]).toEqual(['2026-01-02T12:00:00.000Z', '']);
  expect(running).toHaveLength(header!.length);
});
