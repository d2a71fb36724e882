/**
 * The local console, as `npm start` serves it (`startLocal` and `startConsole`, as bin/local.ts
 * runs them), in a real headless Chromium: requests that succeed, fail (400, 404) and are denied
 * by the IAM emulation (list-plants without its index grant), then each seen in the console with
 * its status, function and request id; the denial with the grant to add; the request's body with
 * every digit of its id and no Authorization value; a webhook delivery replayed from the console
 * (the receiver gets the same webhook-id again). Its screenshots are the ones
 * docs/guides/local-development.md shows: written to docs/images/console-*.png with
 * PLANT_STORE_UPDATE_SCREENSHOTS=1, else beside the suite's data (a run leaves the tree as it
 * was). And its guards: a foreign Host, another origin, an API call without this run's key
 * (none, the header's old constant, another key), each refused and changing nothing, an action
 * that is not JSON; the URL with its key kept in the data directory (0600); the page opened
 * without the key saying where to find it.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type Dialog, type Page } from 'playwright-core';
import {
  CONSOLE_HEADER,
  consoleUrlFile,
  startConsole,
  type RunningConsole,
} from '../../../lib/console/server';
import { cliEnvironment, sendAsDev, useLocalService } from '../../support/local-service';
import { runCommand } from '../../support/run-cli';
import { startReceiver, until, type Receiver } from '../../support/webhook-receiver';

const ROOT = join(__dirname, '../../..');
const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
const ID = '9007199254740993';

// list-plants without queryByTag: a tag list is denied by IAM, the plain list still answers.
const service = useLocalService('console', {
  webhookRetryScale: 0.0001,
  grants: { 'list-plants': { tables: { plants: ['scan'] } } },
});
const IMAGES = process.env.PLANT_STORE_UPDATE_SCREENSHOTS
  ? join(ROOT, 'docs/images')
  : service.dataDir;

let consolePage: RunningConsole;
let receiver: Receiver;
let browser: Browser | undefined;
beforeAll(async () => {
  consolePage = await startConsole({
    invocations: service.invocations,
    dataDir: service.dataDir,
    dbPort: service.dbPort,
    port: 0,
    log: () => undefined,
  });
  receiver = await startReceiver();
});
afterAll(async () => {
  await browser?.close();
  await receiver?.close();
  await consolePage?.close();
});

/** A raw request to the console, with the headers given (Host among them): status and body. */
function answer(
  path: string,
  headers: Record<string, string>,
  method = 'GET',
  body = '',
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port: consolePage.port, path, method, headers },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode!, text }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** A raw request's status. */
async function raw(...args: Parameters<typeof answer>): Promise<number> {
  return (await answer(...args)).status;
}

describe('guards', () => {
  const own = () => ({ host: `127.0.0.1:${consolePage.port}`, [CONSOLE_HEADER]: consolePage.key });

  it('answers its own page and API on its own Host', async () => {
    expect(await raw('/', { host: own().host })).toBe(200);
    expect(await raw('/api/entries', own())).toBe(200);
  });

  it('answers a request target that is no URL 400, and goes on serving', async () => {
    // `new URL('//x:99999', base)` throws: once unhandled, it stopped npm start.
    expect(await answer('//x:99999', { host: 'attacker.example' })).toEqual({
      status: 400,
      text: '{"error":"the request target is no path"}',
    });
    expect(await raw('/api/entries', own())).toBe(200);
  });

  it('refuses a foreign Host (a rebound DNS name), the page and the API alike', async () => {
    expect(await raw('/', { host: 'attacker.example' })).toBe(403);
    expect(
      await raw('/api/entries', { ...own(), host: `attacker.example:${consolePage.port}` }),
    ).toBe(403);
  });

  it('refuses Host localhost, which a browser may send to [::1], where another user can listen', async () => {
    const localhost = `localhost:${consolePage.port}`;
    expect(await raw('/', { host: localhost })).toBe(403);
    expect(await raw('/api/entries', { ...own(), host: localhost })).toBe(403);
  });

  it('refuses another origin, an API call without its header, and an action that is not JSON', async () => {
    expect(await raw('/api/entries', { ...own(), origin: 'http://attacker.example' })).toBe(403);
    expect(await raw('/api/entries', { ...own(), 'sec-fetch-site': 'cross-site' })).toBe(403);
    expect(await raw('/api/entries', { host: own().host })).toBe(403);
    const action = JSON.stringify({ action: 'state', command: 'reset' });
    expect(
      await raw('/api/actions', { ...own(), 'content-type': 'text/plain' }, 'POST', action),
    ).toBe(403);
    expect(
      await raw(
        '/api/actions',
        { host: own().host, 'content-type': 'application/json' },
        'POST',
        action,
      ),
    ).toBe(403);
  });

  /** An API call's headers without this run's key: none, the old constant, another key. */
  const keyless = () => {
    const { key } = consolePage;
    const other = `${key.slice(0, -1)}${key.endsWith('A') ? 'B' : 'A'}`;
    return [
      ['no key', { host: own().host }],
      ['the old constant 1', { ...own(), [CONSOLE_HEADER]: '1' }],
      ['another key of the same length', { ...own(), [CONSOLE_HEADER]: other }],
    ] as const;
  };

  it("refuses a read without this run's key, in one line, with no data", async () => {
    for (const [, headers] of keyless()) {
      for (const path of ['/api/tokens', '/api/plants', '/api/entries']) {
        const refused = await answer(path, headers);
        expect({ path, status: refused.status }).toEqual({ path, status: 403 });
        expect(Object.keys(JSON.parse(refused.text) as object)).toEqual(['error']);
        expect(refused.text).not.toContain('tok_dev');
      }
    }
    expect((await answer('/api/tokens', own())).text).toContain('tok_dev');
  });

  it("refuses an action without this run's key, which changes nothing: the token stays", async () => {
    const env = cliEnvironment(service);
    expect((await runCommand('token', ['create', '--name', 'kept-by-the-key'], env)).code).toBe(0);
    const shown = await runCommand('token', ['show', 'kept-by-the-key'], env);
    const tokenId = /^tokenId: +(\S+)$/m.exec(shown.stdout)![1]!;
    const json = { 'content-type': 'application/json' };
    const revoke = JSON.stringify({ action: 'revoke', tokenId });
    const seed = JSON.stringify({
      action: 'state',
      command: 'seed',
      text: '[{"id":77,"name":"Fern"}]',
    });
    for (const [, headers] of keyless()) {
      expect(await raw('/api/actions', { ...headers, ...json }, 'POST', revoke)).toBe(403);
      expect(await raw('/api/actions', { ...headers, ...json }, 'POST', seed)).toBe(403);
    }
    expect((await runCommand('token', ['show', tokenId], env)).code).toBe(0);
    expect((await sendAsDev(service, 'GET', '/plants/77')).status).toBe(404);
    // With the key, the same action does what it says.
    expect(await raw('/api/actions', { ...own(), ...json }, 'POST', revoke)).toBe(200);
    expect((await runCommand('token', ['show', tokenId], env)).code).not.toBe(0);
  });

  it('keeps its URL, key in the fragment, in the data directory (0600) while it runs', async () => {
    expect(consolePage.url).toBe(`http://127.0.0.1:${consolePage.port}/#key=${consolePage.key}`);
    const dataDir = mkdtempSync(join(tmpdir(), 'plant-store-console-url-'));
    try {
      const other = await startConsole({
        invocations: service.invocations,
        dataDir,
        dbPort: service.dbPort,
        port: 0,
        log: () => undefined,
      });
      const file = consoleUrlFile(dataDir);
      expect(readFileSync(file, 'utf8')).toBe(`${other.url}\n`);
      expect(statSync(file).mode & 0o777).toBe(0o600);
      expect(other.key).not.toBe(consolePage.key);
      await other.close();
      expect(existsSync(file)).toBe(false);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe('what it shows', () => {
  const own = () => ({ host: `127.0.0.1:${consolePage.port}`, [CONSOLE_HEADER]: consolePage.key });

  it("hides a request's secrets in the list and in each entry: query values and credential headers", async () => {
    const secrets = {
      query: 'query-secret-1f3a9',
      proxy: 'cHJveHk6c2VjcmV0LTdkMmU=',
      session: 'session-token-6b0c4',
      apiKey: 'custom-api-key-92e1',
    };
    const response = await fetch(`${service.url}/plants?token=${secrets.query}&tag=kept`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${service.devToken}`,
        'proxy-authorization': `Basic ${secrets.proxy}`,
        'x-amz-security-token': secrets.session,
        'x-custom-api-key': secrets.apiKey,
        'content-type': 'application/json',
      },
      body: '{"id":1.5}',
    });
    expect(response.status).toBe(400);
    const requestId = response.headers.get('apigw-requestid')!;
    const list = await answer('/api/entries', own());
    const entries = (JSON.parse(list.text) as { entries: { seq: number; requestId: string }[] })
      .entries;
    const mine = entries.filter((e) => e.requestId === requestId);
    // create-plant's invocation, and the authorizer's unless its answer was cached.
    expect(mine.length).toBeGreaterThan(0);
    const shown = [list.text];
    for (const { seq } of mine) shown.push((await answer(`/api/entries/${seq}`, own())).text);
    for (const text of shown) {
      for (const secret of [...Object.values(secrets), service.devToken]) {
        expect(text).not.toContain(secret);
      }
    }
    expect(list.text).toContain('/plants?token=(hidden)&tag=kept');
    const detail = shown.slice(1).join('\n');
    expect(detail).toContain('"rawQueryString":"token=(hidden)&tag=kept"');
    expect(detail).toContain('"proxy-authorization":"(hidden)"');
    expect(detail).toContain('"x-amz-security-token":"(hidden)"');
  });
});

describe('plants', () => {
  const own = () => ({ host: `127.0.0.1:${consolePage.port}`, [CONSOLE_HEADER]: consolePage.key });
  const consoleSays = async (query: string) => {
    const { status, text } = await answer(`/api/plants?${query}`, own());
    return { status, ...(JSON.parse(text) as { error?: string; notice?: string }) };
  };
  const apiSays = async (path: string) => {
    const { status, text } = await sendAsDev(service, 'GET', path);
    return { status, error: (JSON.parse(text) as { message?: string }).message };
  };

  it.each(['9223372036854775808', '00000000000000000001', '0001', '-0', '1.5', '+1', '1e3'])(
    'refuses the id %s as GET /plants/{id} does, in its words',
    async (id) => {
      const api = await apiSays(`/plants/${encodeURIComponent(id)}`);
      expect(api.status).toBe(400);
      expect(await consoleSays(`id=${encodeURIComponent(id)}`)).toEqual(api);
    },
  );

  it('refuses a cursor no page gave, however it is shaped, 400', async () => {
    const cursor = (key: unknown) => Buffer.from(JSON.stringify(key)).toString('base64url');
    for (const forged of ['%%%', cursor([1]), cursor({ id: { N: 'abc' } })]) {
      expect(await consoleSays(`cursor=${forged}`)).toEqual({
        status: 400,
        error: 'cursor: must be the next value of a previous page',
      });
    }
  });

  it.each(['-1', '1.5', 'abc', '0', '101', '010'])(
    'refuses the limit %s as GET /plants does, in its words',
    async (limit) => {
      const api = await apiSays(`/plants?limit=${limit}`);
      expect(api.status).toBe(400);
      expect(await consoleSays(`limit=${limit}`)).toEqual(api);
    },
  );

  it('looks up the largest int64 id, and says when no plant has it', async () => {
    expect(await consoleSays('id=9223372036854775807')).toEqual({
      status: 200,
      items: [],
      notice: 'no plant with id 9223372036854775807',
    });
  });
});

describe('actions', () => {
  const own = () => ({
    host: `127.0.0.1:${consolePage.port}`,
    [CONSOLE_HEADER]: consolePage.key,
    'content-type': 'application/json',
  });
  const action = async (body: object) => {
    const { status, text } = await answer('/api/actions', own(), 'POST', JSON.stringify(body));
    return { status, ...(JSON.parse(text) as { error?: string; err?: string[] }) };
  };

  it('answers a malformed body or path with 400 and what is wrong, not 500', async () => {
    const refused = await action({});
    expect(refused.status).toBe(400);
    const { status, text } = await answer('/api/actions', own(), 'POST', '{');
    expect(status).toBe(400);
    expect(JSON.parse(text)).toEqual({
      error: expect.stringMatching(/^an action is a JSON object: /),
    });
    for (const [path, error] of [
      ['/api/subscribers/%E0%A4%A/attempts', '%E0%A4%A is not valid percent-encoding'],
      ['/api/subscribers/--aws/attempts', 'subscriberId must not start with -, not --aws'],
    ]) {
      const read = await answer(path!, own());
      expect({ path, status: read.status, ...(JSON.parse(read.text) as object) }).toEqual({
        path,
        status: 400,
        error,
      });
    }
  });

  it('refuses a value that would be read as an option, and passes the others after --', async () => {
    expect(await action({ action: 'revoke', tokenId: '--aws' })).toEqual({
      status: 400,
      error: 'tokenId must not start with -, not --aws',
    });
    for (const body of [
      { action: 'enable', subscriberId: '--aws' },
      { action: 'redrive', webhookId: '--aws' },
      { action: 'replay', since: '--aws' },
      { action: 'replay', since: '2020-01-01T00:00:00Z', subscriberId: '-x' },
      { action: 'state', command: 'save', name: '--tokens' },
    ]) {
      const refused = await action(body);
      expect({ body, status: refused.status }).toEqual({ body, status: 400 });
      expect(refused.error).toMatch(/^\w+ must not start with -, not -/);
    }
    expect(await action({ action: 'state', command: '--tokens' })).toMatchObject({
      status: 400,
      err: ['state: unknown command --tokens'],
    });
    // A value that is none reaches the command as its argument, which answers for it.
    const enabled = await action({ action: 'enable', subscriberId: 'nobody' });
    expect(enabled.status).toBe(400);
    expect(enabled.err?.join('\n')).toContain('no subscriber with id nobody');
  });
});

const hasBrowser = existsSync(CHROMIUM);
if (!hasBrowser && process.env.CI) {
  throw new Error(`console.test.ts: no Chromium at ${CHROMIUM} in CI: .ci/run installs it`);
}
(hasBrowser ? describe : describe.skip)('in Chromium', () => {
  let page: Page;
  const requestIds: Record<string, string> = {};

  beforeAll(async () => {
    const added = await runCommand(
      'webhook',
      ['add', '--url', receiver.url],
      cliEnvironment(service),
    );
    expect(added.code).toBe(0);
    receiver.secret = added.stdout.trim();
    const send = async (name: string, method: string, path: string, body?: string) => {
      const response = await fetch(`${service.url}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${service.devToken}`,
          ...(body ? { 'content-type': 'application/json' } : {}),
        },
        body,
      });
      await response.text();
      requestIds[name] = response.headers.get('apigw-requestid')!;
      return response.status;
    };
    expect(
      await send('created', 'POST', '/plants', `{"id":${ID},"name":"Monstera","tag":"aroid"}`),
    ).toBe(200);
    expect(await send('read', 'GET', `/plants/${ID}`)).toBe(200);
    expect(await send('invalid', 'POST', '/plants', '{"id":1.5}')).toBe(400);
    expect(await send('missing', 'GET', '/plants/404404')).toBe(404);
    expect(await send('denied', 'GET', '/plants?tag=aroid')).toBe(500);
    await until(() => receiver.delivered().size === 1, 'the delivery of the created plant');
    browser = await chromium.launch({ executablePath: CHROMIUM });
    page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
    await page.goto(consolePage.url);
    await page.waitForSelector('#entries tbody tr');
    mkdirSync(IMAGES, { recursive: true });
  });

  it('takes the key out of the address bar and keeps it for a reload', async () => {
    expect(page.url()).toBe(`http://127.0.0.1:${consolePage.port}/`);
    await page.reload();
    await page.waitForSelector('#entries tbody tr');
    expect(await page.locator('#no-key').isHidden()).toBe(true);
  });

  it.each([
    ['without the key', ''],
    ["with another run's key", `#key=${'A'.repeat(43)}`],
  ])('opened %s, says to open the printed URL and shows no data', async (_, fragment) => {
    const other = await browser!.newPage();
    try {
      await other.goto(`http://127.0.0.1:${consolePage.port}/${fragment}`);
      const notice = other.locator('#no-key');
      await notice.waitFor();
      expect(await notice.innerText()).toMatch(/npm start printed/);
      expect(await other.locator('#entries tbody tr').count()).toBe(0);
    } finally {
      await other.close();
    }
  });

  /** The function each request invoked. */
  const FUNCTION: Record<string, string> = {
    created: 'create-plant',
    read: 'get-plant',
    invalid: 'create-plant',
    missing: 'get-plant',
    denied: 'list-plants',
  };
  /** The row of a request's invocation of its function. */
  const row = (name: string) =>
    page
      .locator('#entries tbody tr')
      .filter({ hasText: requestIds[name]! })
      .filter({ has: page.locator('td:nth-child(3)', { hasText: FUNCTION[name] }) });

  it('lists each invocation, newest first, with its route, function, status, start and memory', async () => {
    await until(() => Object.keys(requestIds).length === 5, 'the requests');
    for (const [name, route, fn, status] of [
      ['created', 'POST /plants', 'create-plant', '200'],
      ['read', 'GET /plants/{id}', 'get-plant', '200'],
      ['invalid', 'POST /plants', 'create-plant', '400'],
      ['missing', 'GET /plants/{id}', 'get-plant', '404'],
      ['denied', 'GET /plants', 'list-plants', '500'],
    ] as const) {
      const cells = await row(name).locator('td').allInnerTexts();
      expect(cells[1]).toContain(route);
      expect(cells[2]).toBe(fn);
      expect(cells[3]).toContain(status);
      expect(cells[4]).toMatch(/ ms$/);
      expect(cells[5]).toMatch(/^(cold|warm)$/);
      expect(cells[6]).toMatch(/^\d+ MB$/);
    }
    await expect(row('denied').innerText()).resolves.toContain('IAM denied');
    // Newest first: the denied list above the create.
    const order = await page.locator('#entries tbody tr td:last-child').allInnerTexts();
    expect(order.indexOf(requestIds.denied!)).toBeLessThan(order.lastIndexOf(requestIds.created!));
    await expect(page.locator('#entries tbody').innerText()).resolves.toContain(
      'queue plant-store-deliveries',
    );
    await page.screenshot({ path: join(IMAGES, 'console-invocations.png') });
  });

  it('opens one: the request with every digit of its id and no Authorization value, the answer, the log', async () => {
    await row('created').click();
    const detail = page.locator('#detail');
    await detail.getByText('Log').waitFor();
    const text = await detail.innerText();
    expect(text).toContain(`{"id":${ID},"name":"Monstera","tag":"aroid"}`);
    expect(text).toContain('authorization: (hidden)');
    expect(text).not.toContain(service.devToken);
    expect(text).toContain(`INFO created id=${ID}`);
    expect(text).toMatch(/^200$/m);
  });

  it('marks the IAM denial with the action, the resource and the grant to add', async () => {
    await row('denied').click();
    const denial = page.locator('#detail .denial');
    await denial.waitFor();
    expect(await denial.innerText()).toBe(
      '[iam] denied: list-plants may not dynamodb:Query on arn:aws:dynamodb:local:000000000000:table/plants/index/byTag\n' +
        "[iam] to allow it, add 'queryByTag' to tables.plants in lambda/list-plants/grants.ts",
    );
    await page.screenshot({ path: join(IMAGES, 'console-denial.png') });
  });

  it('opens a row from the keyboard, and marks what a screen reader needs', async () => {
    // From the last tab's button, Tab reaches the first row's button; Enter opens that row.
    await page.focus('nav button[data-tab=state]');
    await page.keyboard.press('Tab');
    const focused = page.locator('#entries tbody tr:first-child button:focus');
    await focused.waitFor();
    // An expression run in the page (this suite's types know no DOM).
    const outline = await page.evaluate('getComputedStyle(document.activeElement).outlineStyle');
    expect(outline).toBe('solid');
    const seq = await page.locator('#entries tbody tr:first-child').getAttribute('data-seq');
    await page.keyboard.press('Enter');
    await page.locator(`#entries tbody tr.open[data-seq="${seq}"]`).waitFor();
    await page.locator('#detail h3', { hasText: 'Log' }).waitFor();
    expect(await page.locator('#detail').isVisible()).toBe(true);
    // The focus moves to the opened entry's heading, and stays there while the list grows and
    // the pane is drawn again.
    await page.locator('#detail h2:focus').waitFor();
    const count = await page.locator('#entries tbody tr').count();
    expect((await sendAsDev(service, 'GET', '/plants/78')).status).toBe(404);
    await page.locator('#entries tbody tr').nth(count).waitFor();
    await page.locator('#detail h3', { hasText: 'Log' }).waitFor();
    await page.locator('#detail h2:focus').waitFor();
    await expect(page.locator('nav button[aria-current=page]').innerText()).resolves.toBe(
      'Invocations',
    );
    for (const id of ['#result', '#live']) {
      expect(await page.locator(id).getAttribute('role')).toBe('status');
      expect(await page.locator(id).getAttribute('aria-live')).toBe('polite');
    }
  });

  it('shows an error answer, or one that is not JSON, as an error rather than failing', async () => {
    const failures: string[] = [];
    const onError = (error: Error) => failures.push(error.message);
    page.on('pageerror', onError);
    try {
      await page.route('**/api/tokens', (route) =>
        route.fulfill({ status: 500, contentType: 'application/json', body: '{"error":"boom"}' }),
      );
      await page.route('**/api/dead-letters', (route) =>
        route.fulfill({ status: 502, contentType: 'text/html', body: '<h1>Bad Gateway</h1>' }),
      );
      await page.click('nav button[data-tab=tokens]');
      await page.locator('#tokens-out .bad', { hasText: 'boom' }).waitFor();
      await page.click('nav button[data-tab=dead-letters]');
      await page
        .locator('#dead-letters-out .bad', { hasText: 'the console answered 502' })
        .waitFor();
    } finally {
      await page.unrouteAll();
      page.off('pageerror', onError);
    }
    expect(failures).toEqual([]);
    await page.click('nav button[data-tab=invocations]');
  });

  it('shows the engine not answering as an error, not as an empty list', async () => {
    service.setEngineAvailable(false);
    try {
      await page.click('nav button[data-tab=tokens]');
      const error = page.locator('#tokens-out .bad');
      await error.waitFor();
      expect(await page.locator('#tokens-out').innerText()).not.toMatch(/^none$/m);
      await page.click('nav button[data-tab=subscribers]');
      await page.locator('#subscribers-out .bad').waitFor();
    } finally {
      service.setEngineAvailable(true);
    }
    await page.click('nav button[data-tab=tokens]');
    await page.locator('#tokens-out td', { hasText: 'tok_dev' }).waitFor();
    await page.click('nav button[data-tab=invocations]');
  });

  it('says to open the printed URL once the console has stopped answering, and fails no click', async () => {
    const failures: string[] = [];
    const dataDir = mkdtempSync(join(tmpdir(), 'plant-store-console-gone-'));
    const gone = await startConsole({
      invocations: service.invocations,
      dataDir,
      dbPort: service.dbPort,
      port: 0,
      log: () => undefined,
    });
    const other = await browser!.newPage();
    other.on('pageerror', (error) => failures.push(error.message));
    try {
      await other.goto(gone.url);
      await other.locator('#live', { hasText: 'live' }).waitFor();
      await gone.close();
      const notice = other.locator('#no-key');
      await notice.waitFor();
      expect(await notice.innerText()).toMatch(/open the console URL it printed.*console-url/);
      expect(await other.locator('#live').innerText()).toBe('npm start is not answering');
      await other.click('nav button[data-tab=tokens]');
      await other.locator('#tokens-out .bad').waitFor();
    } finally {
      await other.close();
      await gone.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
    expect(failures).toEqual([]);
  });

  it('replays a delivery from its deliver invocation: the receiver gets the same webhook-id again', async () => {
    const [webhookId] = receiver.delivered().keys();
    await page
      .locator('#entries tbody tr', { hasText: 'queue plant-store-deliveries' })
      .last()
      .click();
    await page.getByRole('button', { name: 'Replay this delivery' }).click();
    await page.locator('#result', { hasText: 'queued 1 delivery' }).waitFor();
    await until(
      () => receiver.received.filter((r) => r.id === webhookId && r.answered === 204).length === 2,
      'the replayed delivery',
    );
  });

  it('shows the plants by id and by tag, ids exact; tokens without their secret', async () => {
    await page.click('nav button[data-tab=plants]');
    await page.fill('#plants-form input[name=tag]', 'aroid');
    await page.click('#plants-form button');
    await page.locator('#plants-out td', { hasText: ID }).waitFor();
    await page.fill('#plants-form input[name=tag]', '');
    await page.fill('#plants-form input[name=id]', ID);
    await page.click('#plants-form button');
    await page.locator('#plants-out td', { hasText: ID }).waitFor();
    await page.screenshot({ path: join(IMAGES, 'console-plants.png') });
    await page.click('nav button[data-tab=tokens]');
    await page.locator('#tokens-out td', { hasText: 'tok_dev' }).waitFor();
    await expect(page.locator('nav button[aria-current=page]').innerText()).resolves.toBe('Tokens');
    // Each row's button names the token it acts on.
    await page.getByRole('button', { name: /^Revoke tok_dev \(/ }).waitFor();
    expect(await page.locator('body').innerText()).not.toContain(service.devToken);
  });

  it('saves the state and refuses an invalid seed, naming the entry, from the console', async () => {
    await page.click('nav button[data-tab=state]');
    await page.fill('#state-form input[name=name]', 'from-console');
    await page.click('#state-form button[data-command=save]');
    await page.locator('#result', { hasText: 'saved from-console: 1 item in plants' }).waitFor();
    await page.locator('#states-out', { hasText: 'from-console' }).waitFor();
    await page.fill('#seed-form textarea', '[{"id":5,"name":"Ivy"},{"id":"6","name":"Pothos"}]');
    await page.click('#seed-form button');
    await page.locator('#result', { hasText: 'entry 2 (id 6)' }).waitFor();
    expect(await page.locator('#result').innerText()).toContain('nothing was seeded');
    expect((await sendAsDev(service, 'GET', '/plants/5')).status).toBe(404);
  });

  it('shows a deleted plant as deleted: struck through, with its time, and by id that the API answers 404', async () => {
    const fading = '4242';
    const created = await sendAsDev(service, 'POST', '/plants', `{"id":${fading},"name":"Fading"}`);
    expect(created.status).toBe(200);
    expect((await sendAsDev(service, 'DELETE', `/plants/${fading}`)).status).toBe(204);
    expect((await sendAsDev(service, 'GET', `/plants/${fading}`)).status).toBe(404);
    await page.click('nav button[data-tab=plants]');
    await page.fill('#plants-form input[name=tag]', '');
    await page.fill('#plants-form input[name=id]', fading);
    await page.click('#plants-form button');
    const notice = page.locator('#plants-out .notice');
    await notice.waitFor();
    expect(await notice.innerText()).toMatch(
      new RegExp(`^plant ${fading} was deleted at \\S+: the API answers 404 for it$`),
    );
    const row = page.locator('#plants-out tr.tombstone');
    expect(await row.locator('.badge').innerText()).toMatch(/^deleted \d{4}-\d\d-\d\dT/);
    // An expression run in the page (this suite's types know no DOM).
    const struck = await page.evaluate(
      "getComputedStyle(document.querySelector('#plants-out tr.tombstone td')).textDecorationLine",
    );
    expect(struck).toBe('line-through');
    // In the whole list too, beside the plants that are there.
    await page.fill('#plants-form input[name=id]', '');
    await page.click('#plants-form button');
    await page.locator('#plants-out tr:not(.tombstone) td', { hasText: ID }).waitFor();
    expect(await page.locator('#plants-out tr.tombstone', { hasText: fading }).count()).toBe(1);
  });

  it('confirms what Reset, Load and an overwriting Save replace, and does nothing when dismissed', async () => {
    await page.click('nav button[data-tab=state]');
    const asked: string[] = [];
    /** Clicks a state button and answers its confirms in turn; resolves with their texts. */
    const click = async (command: string, ...answers: boolean[]) => {
      asked.length = 0;
      const handle = (dialog: Dialog) => {
        asked.push(dialog.message());
        void (answers.shift() ? dialog.accept() : dialog.dismiss());
      };
      page.on('dialog', handle);
      try {
        await page.click(`#state-form button[data-command=${command}]`);
        await until(() => answers.length === 0, `the confirms of ${command}`);
        // The last confirm's consequence (an action, then the states' list) has been asked for.
        await page.waitForLoadState('networkidle');
      } finally {
        page.off('dialog', handle);
      }
      return [...asked];
    };
    await page.check('#state-form input[name=tokens]');
    expect(await click('reset', false)).toEqual([expect.stringMatching(/\btoken\b/)]);
    await page.uncheck('#state-form input[name=tokens]');
    expect(await click('reset', false)).toEqual([expect.stringMatching(/the tokens stay/)]);
    await page.fill('#state-form input[name=name]', 'from-console');
    expect(await click('load', false)).toEqual([
      expect.stringMatching(
        /^Replace all the data .* from-console\? What it does not hold is removed\.$/,
      ),
    ]);
    // The same name again: the server refuses to overwrite unasked; dismissed, the file stays.
    const file = join(service.dataDir, 'states', 'from-console.json');
    const before = readFileSync(file, 'utf8');
    expect(await click('save', false)).toEqual([
      'A state named from-console is saved already. Overwrite it?',
    ]);
    expect(readFileSync(file, 'utf8')).toBe(before);
    await sendAsDev(service, 'POST', '/plants', '{"id":7,"name":"Aloe"}');
    expect(await click('save', true)).toHaveLength(1);
    await page.locator('#result', { hasText: 'saved from-console:' }).waitFor();
    expect(readFileSync(file, 'utf8')).toContain('{"id":{"N":"7"},"name":{"S":"Aloe"}');
    // Nothing was reset or loaded: the plants are there.
    expect((await sendAsDev(service, 'GET', '/plants/7')).status).toBe(200);
    expect((await sendAsDev(service, 'GET', `/plants/${ID}`)).status).toBe(200);
  });

  it('the plant is still read through the API as created', async () => {
    const read = await sendAsDev(service, 'GET', `/plants/${ID}`);
    expect(read.text).toBe(`{"id":${ID},"name":"Monstera","tag":"aroid"}`);
  });

  it("isolates each value's direction and wraps a long one within the window", async () => {
    const hostile = `\u202Egnp.${'W'.repeat(300)}`;
    const made = await sendAsDev(
      service,
      'POST',
      '/plants',
      JSON.stringify({ id: 31415, name: hostile }),
    );
    expect(made.status).toBe(200);
    await page.setViewportSize({ width: 900, height: 900 });
    try {
      await page.click('nav button[data-tab=plants]');
      await page.fill('#plants-form input[name=tag]', '');
      await page.fill('#plants-form input[name=id]', '31415');
      await page.click('#plants-form button');
      await page.locator('#plants-out td', { hasText: 'gnp.' }).waitFor();
      // Expressions run in the page (this suite's types know no DOM).
      const cell =
        "[...document.querySelectorAll('#plants-out td')].find((td) => td.textContent.includes('gnp.'))";
      expect(await page.evaluate(`getComputedStyle(${cell}).unicodeBidi`)).toBe('plaintext');
      const fits = await page.evaluate(
        "document.querySelector('#plants-out table').scrollWidth <= document.querySelector('main').clientWidth",
      );
      expect(fits).toBe(true);
    } finally {
      await page.setViewportSize({ width: 1440, height: 900 });
    }
  });
});
