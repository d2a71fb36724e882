/**
 * The operator's webhook commands against the local runtime (`npm start` in-process): `add`
 * warning that a deployed stack would refuse a private URL, `test <id>` (a signed example marked
 * by its webhook-id), `dead-letters` (a header row) and `--redrive <webhook-id>` (that one, the
 * others stay), `listen --forward-to` (verified, then the same bytes and headers sent on, the
 * receiver's answer printed and returned). The schedule runs at 1/100,000 of its length.
 */
import { runWebhookCli } from '../../../lib/operator/webhook/cli';
import { DEAD_LETTERS_HEADER } from '../../../lib/operator/webhook/dead-letters';
import { TEST_WEBHOOK_ID_PREFIX } from '../../../lib/operator/webhook/queues';
import { shownUrl } from '../../../lib/operator/webhook/receivers';
import { MAX_ATTEMPTS } from '../../../lambda/webhook/schedule';
import { freePort } from '../../../lib/local/process/free-port';
import { cliEnvironment, useLocalService } from '../../support/local-service';
import { uncheckedFetch } from '../../support/http';
import { runCommand } from '../../support/run-cli';
import { startReceiver, until, type Receiver } from '../../support/webhook-receiver';

const service = useLocalService('webhook-tools', { webhookRetryScale: 0.00001 });
const cli = (...args: string[]) => runCommand('webhook', args, cliEnvironment(service));

const EXAMPLE = '{"id":9007199254740993,"name":"Monstera","tag":"aroid"}';

const receivers: Receiver[] = [];
afterAll(async () => {
  await Promise.all(receivers.map((r) => r.close()));
});

async function subscribe(receiver: Receiver): Promise<{ id: string; stderr: string }> {
  const added = await cli('add', '--url', receiver.url);
  expect(added.code).toBe(0);
  receiver.secret = added.stdout.trim();
  return { id: /subscriberId (sub_\S+)/.exec(added.stderr)![1]!, stderr: added.stderr };
}

const post = (body: string) =>
  fetch(`${service.url}/plants`, {
    method: 'POST',
    headers: { authorization: `Bearer ${service.devToken}`, 'content-type': 'application/json' },
    body,
  });

it('add says when a deployed stack would refuse the URL; test sends a signed example marked by its webhook-id', async () => {
  const receiver = await startReceiver();
  receivers.push(receiver);
  const { id, stderr } = await subscribe(receiver);
  expect(stderr).toContain(
    'note: npm start delivers to it, but a deployed stack would refuse this URL (127.0.0.1 is not a public address): deployed, a subscriber must be https to a public address\n',
  );
  const publicUrl = await cli('add', '--url', 'https://example.com/hook');
  expect(publicUrl.code).toBe(0);
  expect(publicUrl.stderr).not.toContain('note:');
  await cli('remove', /subscriberId (sub_\S+)/.exec(publicUrl.stderr)![1]!);

  const sent = await cli('test', id);
  expect(sent.code).toBe(0);
  const webhookId = sent.stdout.trim();
  expect(webhookId).toMatch(new RegExp(`^${TEST_WEBHOOK_ID_PREFIX}[\\w-]+$`));
  expect(sent.stderr).toContain(`queued a test delivery for ${id}: webhook-id ${webhookId}`);
  await until(() => receiver.delivered().has(webhookId), 'the test delivery arrives');
  // Signed with the subscriber's secret, the body exactly a NewPlant.
  expect(receiver.delivered().get(webhookId)).toMatchObject({ body: EXAMPLE, verified: true });

  expect(await cli('test', 'sub_nobody')).toMatchObject({
    code: 1,
    stderr: expect.stringMatching(/^webhook: no subscriber with id sub_nobody in the local engine/),
  });
  expect(await cli('test')).toMatchObject({
    code: 2,
    stderr: 'webhook: test needs exactly one subscriberId (see npm run webhook -- --help)\n',
  });
});

it('dead-letters lists under a header row; --redrive <webhook-id> redrives that one only', async () => {
  let down = true;
  const receiver = await startReceiver(() => (down ? 503 : 204));
  receivers.push(receiver);
  await subscribe(receiver);
  for (const body of ['{"id":4101,"name":"first"}', '{"id":4102,"name":"second"}']) {
    expect((await post(body)).status).toBe(200);
  }
  await until(
    () => receiver.received.length === 2 * MAX_ATTEMPTS,
    'every attempt reaches the down receiver',
  );
  let rows: string[] = [];
  for (let tries = 0; tries < 40 && rows.length < 3; tries++) {
    await new Promise((resolve) => setTimeout(resolve, 250));
    rows = (await cli('dead-letters')).stdout.split('\n').filter(Boolean);
  }
  expect(rows[0]).toBe(DEAD_LETTERS_HEADER);
  expect(rows[0]).toBe('webhookId\tsubscriberId\tplantId\tdeadSince');
  const letters = rows.slice(1).map((row) => row.split('\t'));
  expect(letters.map((row) => row[2]).sort()).toEqual(['4101', '4102']);
  const [first, second] = letters.sort((a, b) => a[2]!.localeCompare(b[2]!));

  const missing = await cli('dead-letters', '--redrive', 'msg_nothing');
  expect(missing.code).toBe(1);
  expect(missing.stderr).toMatch(
    /^webhook: no dead letter with webhook-id msg_nothing in the local dead-letter queue\n$/,
  );

  down = false;
  const redriven = await cli('dead-letters', '--redrive', first![0]!);
  expect(redriven.code).toBe(0);
  expect(redriven.stderr).toContain(`redriving ${first![0]} to the delivery queue`);
  await until(() => receiver.delivered().has(first![0]!), 'the redriven delivery arrives');
  const left = (await cli('dead-letters')).stdout.split('\n').filter(Boolean);
  expect(left).toEqual([DEAD_LETTERS_HEADER, expect.stringMatching(`^${second![0]}\t`)]);
  expect(receiver.delivered().has(second![0]!)).toBe(false);
  expect((await cli('dead-letters')).stdout).toContain(second![0]);
});

it('listen --forward-to verifies, sends the same bytes and headers on, prints and returns the answer', async () => {
  // The receiver behind the listener refuses the first attempt, then takes it.
  const behind = await startReceiver((nth) => (nth === 1 ? 500 : 202));
  receivers.push(behind);
  const port = await freePort();
  const added = await cli('add', '--url', `http://127.0.0.1:${port}/`);
  const secret = added.stdout.trim();
  const subscriberId = /subscriberId (sub_\S+)/.exec(added.stderr)![1]!;
  behind.secret = secret;

  // The listener runs in this process: what it forwards to is a receiver, not the API.
  const checked = globalThis.fetch;
  globalThis.fetch = uncheckedFetch;
  const stop = new AbortController();
  try {
    const out: string[] = [];
    const err: string[] = [];
    const run = runWebhookCli(['listen', '--port', String(port), '--forward-to', behind.url], {
      out: (line) => out.push(line),
      err: (line) => err.push(line),
      env: { PLANT_STORE_WEBHOOK_SECRET: secret },
      signal: stop.signal,
    });
    await until(() => err.length > 0, 'the listener starts');
    expect(err).toEqual([
      `listening on http://127.0.0.1:${port}/, forwarding to ${shownUrl(behind.url)} (Ctrl-C stops)`,
    ]);

    const webhookId = (await cli('test', subscriberId)).stdout.trim();
    await until(() => behind.delivered().has(webhookId), 'the forwarded delivery arrives');
    // The same body and signature headers: it verifies behind the listener too; the listener
    // answered the deliverer's first attempt with the 500 it got, so the deliverer retried.
    expect(behind.received.filter((r) => r.id === webhookId)).toEqual([
      expect.objectContaining({ body: EXAMPLE, verified: true, answered: 500, attempt: '1' }),
      expect.objectContaining({ body: EXAMPLE, verified: true, answered: 202, attempt: '2' }),
    ]);
    await until(() => out.length >= 4, 'the listener prints both answers');
    expect(err.slice(1)).toEqual([]);
    expect(out).toEqual([
      `${webhookId}\tattempt 1\t${EXAMPLE}`,
      `${webhookId}\t→ ${shownUrl(behind.url)}\t500\t`,
      `${webhookId}\tattempt 2\t${EXAMPLE}`,
      `${webhookId}\t→ ${shownUrl(behind.url)}\t202\t`,
    ]);
    stop.abort();
    expect(await run).toBe(0);
  } finally {
    // A failed expectation must not leave the listener serving (Jest would not exit).
    stop.abort();
    globalThis.fetch = checked;
  }
});

it.each([
  [
    ['listen', '--forward-to', 'nowhere'],
    '--forward-to must be an absolute http(s) URL, not nowhere',
  ],
  [['listen', '--forward-to', 'ftp://x/'], '--forward-to must be http or https, not ftp'],
  [['dead-letters', 'x'], 'unexpected argument x'],
  [['dead-letters', '--redrive', 'a', 'b'], 'unexpected argument b'],
])('%j is one usage line', async (args, message) => {
  const err: string[] = [];
  const code = await runWebhookCli(args, {
    out: () => undefined,
    err: (line) => err.push(line),
    env: { PLANT_STORE_WEBHOOK_SECRET: `whsec_${Buffer.alloc(32, 1).toString('base64')}` },
  });
  expect({ code, err }).toEqual({
    code: 2,
    err: [`webhook: ${message} (see npm run webhook -- --help)`],
  });
});
