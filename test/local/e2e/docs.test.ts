/**
 * The API reference `npm start` serves: `GET /openapi.json` and `GET /docs` without a token,
 * Swagger UI from node_modules (no CDN), and — in a real headless Chromium (Debian's
 * `chromium`) — a person's path through the page: authorize with a token, send POST /plants,
 * see the 200 and the plant, send a bad body, see the 400 Error, from another origin so that
 * the CORS preflight must succeed; the answers it shows, the examples and the schema keep every
 * digit of 9007199254740993 and -9223372036854775808; and the built `@plant-store/client` runs in
 * the page. Screenshots go to `test-output/` (git-ignored).
 */
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { PlantStore } from '@plant-store/client';
import { build } from 'esbuild';
import { chromium, type Browser, type Page } from 'playwright-core';
import { useLocalService } from '../../support/local-service';
import { AnswerChecker } from '../../support/openapi-answers';

const ROOT = join(__dirname, '../../..');
const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
const OUTPUT = join(ROOT, 'test-output');
const log: string[] = [];
const service = useLocalService('docs', { authCacheTtlSeconds: 0, log: (line) => log.push(line) });

describe('served beside the API, without a token', () => {
  it('GET /openapi.json is the committed document', async () => {
    const response = await fetch(`${service.url}/openapi.json`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(await response.text()).toBe(readFileSync(join(ROOT, 'openapi.json'), 'utf8'));
  });

  it('GET /docs is Swagger UI, every asset from this server', async () => {
    const response = await fetch(`${service.url}/docs`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const html = await response.text();
    expect(html).not.toMatch(/https?:\/\//);
    const assets = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
    expect(assets).toEqual(
      expect.arrayContaining([
        '/docs/swagger-ui.css',
        '/docs/swagger-ui-bundle.js',
        '/docs/init.js',
      ]),
    );
    for (const asset of assets) {
      const answer = await fetch(`${service.url}${asset}`);
      await answer.arrayBuffer();
      expect({ asset, status: answer.status }).toEqual({ asset, status: 200 });
    }
    const bundle = await fetch(`${service.url}/docs/swagger-ui-bundle.js`);
    const dist = dirname(require.resolve('swagger-ui-dist/package.json'));
    const served = Buffer.from(await bundle.arrayBuffer());
    // Buffer#equals, not toEqual: a byte-by-byte diff of 1.5 MB is slow enough to outlive keep-alive.
    expect(served.equals(readFileSync(join(dist, 'swagger-ui-bundle.js')))).toBe(true);
  });

  it('other methods and paths are the API’s: the gateway answers 404', async () => {
    expect((await fetch(`${service.url}/docs`, { method: 'POST' })).status).toBe(404);
    expect((await fetch(`${service.url}/docs/index.html`)).status).toBe(404);
  });
});

const hasBrowser = existsSync(CHROMIUM);
// In CI (.ci/run installs chromium) a missing browser is a failure, never a silent skip.
if (!hasBrowser && process.env.CI) {
  throw new Error(
    `docs.test.ts: no Chromium at ${CHROMIUM} in CI (CI=${process.env.CI}): .ci/run installs it, or set CHROMIUM_PATH`,
  );
}
if (!hasBrowser) {
  process.stderr.write(
    `docs.test.ts: browser test skipped: no Chromium at ${CHROMIUM} (set CHROMIUM_PATH, or run .ci/run, which installs chromium)\n`,
  );
}
const inBrowser = hasBrowser ? describe : describe.skip;

inBrowser(
  hasBrowser
    ? `in Chromium (${CHROMIUM})`
    : `in Chromium — SKIPPED: no browser at ${CHROMIUM}; set CHROMIUM_PATH or install Debian's chromium`,
  () => {
    let browser: Browser;
    beforeAll(async () => {
      browser = await chromium.launch({ executablePath: CHROMIUM, headless: true });
    }, 300_000);
    afterAll(async () => {
      await browser?.close();
    });

    it('authorize, POST /plants: 200 and the plant; a bad body: 400 Error; the preflight passes', async () => {
      mkdirSync(OUTPUT, { recursive: true });
      const page = await browser.newPage({ viewport: { width: 1280, height: 1400 } });
      // Every answer the page receives from the API is checked against the document too.
      const checker = new AnswerChecker();
      const checks: Promise<void>[] = [];
      page.on('response', (response) => {
        if (!response.url().startsWith(`${service.url}/plants`)) return;
        checks.push(
          (async () => {
            const request = response.request();
            checker.check(
              { method: request.method(), url: request.url(), headers: await request.allHeaders() },
              {
                status: response.status(),
                headers: await response.allHeaders(),
                body: await response.text(),
              },
            );
          })(),
        );
      });
      // The page comes from http://localhost:PORT; the API it calls is http://127.0.0.1:PORT,
      // another origin, as a deployed API is: the browser must pass a CORS preflight first.
      const port = new URL(service.url).port;
      await page.goto(`http://localhost:${port}/docs`);
      const operation = page.locator('#operations-plants-createPlant');
      await operation.waitFor();
      await expect(page.locator('.servers select').inputValue()).resolves.toBe(
        'http://127.0.0.1:{port}',
      );

      await page.locator('button.authorize').first().click();
      await page.locator('.modal-ux input').fill(service.devToken);
      await page.locator('.modal-ux button.authorize').click();
      await page.locator('.modal-ux button.btn-done').click();

      await operation.locator('.opblock-summary-control').click();
      const body = operation.locator('textarea.body-param__text');
      const execute = async (text: string) => {
        await body.fill(text);
        const [answer] = await Promise.all([
          page.waitForResponse(
            (r) => r.url() === `${service.url}/plants` && r.request().method() === 'POST',
          ),
          operation.locator('button.execute').click(),
        ]);
        const row = operation.locator('.live-responses-table tr.response');
        await row.locator('.response-col_status', { hasText: String(answer.status()) }).waitFor();
        return {
          status: (await row.locator('.response-col_status').innerText()).trim(),
          body: await row.locator('.response-col_description pre').first().innerText(),
        };
      };

      // The viewport around the answer: the request as curl, its URL, the status and the body.
      const shoot = async (file: string) => {
        await page.evaluate(
          "document.querySelector('#operations-plants-createPlant .request-url').scrollIntoView({ block: 'start' }); window.scrollBy(0, -250)",
        );
        await page.screenshot({ path: join(OUTPUT, file) });
      };

      const created = await execute('{"id": 9007199254740993, "name": "Monstera", "tag": "aroid"}');
      expect(created.status).toBe('200');
      expect(JSON.parse(created.body)).toEqual({ name: 'Monstera', tag: 'aroid' });
      await page.screenshot({ path: join(OUTPUT, 'docs-page.png'), fullPage: true });
      await shoot('docs-post-200.png');

      const refused = await execute('{"name": 5}');
      expect(refused.status).toBe('400');
      expect(JSON.parse(refused.body)).toEqual({
        error: 400,
        message: 'id: required; name: must be a string',
      });
      await shoot('docs-post-400.png');

      await Promise.all(checks);
      expect(checks.length).toBeGreaterThanOrEqual(2);
      expect(log.filter((line) => line.startsWith('OPTIONS /plants 204'))).not.toHaveLength(0);
      expect(log.filter((line) => line.startsWith('POST /plants '))).toEqual([
        expect.stringMatching(/^POST \/plants 200 /),
        expect.stringMatching(/^POST \/plants 400 /),
      ]);
    }, 300_000);

    /** A page from http://localhost:PORT, authorized with the dev token. */
    async function openDocs(): Promise<Page> {
      const page = await browser.newPage({ viewport: { width: 1280, height: 1400 } });
      await page.goto(`http://localhost:${new URL(service.url).port}/docs`);
      await page.locator('#operations-plants-getPlant').waitFor();
      await page.locator('button.authorize').first().click();
      await page.locator('.modal-ux input').fill(service.devToken);
      await page.locator('.modal-ux button.authorize').click();
      await page.locator('.modal-ux button.btn-done').click();
      return page;
    }

    /** Sends an operation from the page and answers the body it shows. */
    async function execute(page: Page, operationId: string, id?: string): Promise<string> {
      const operation = page.locator(`#operations-plants-${operationId}`);
      if (!(await operation.locator('button.execute').isVisible())) {
        await operation.locator('.opblock-summary-control').click();
      }
      // The answer of an earlier execution goes first, so that the one read is this one's.
      const clear = operation.locator('button.btn-clear');
      if (await clear.isVisible()) await clear.click();
      await operation.locator('.live-responses-table').waitFor({ state: 'detached' });
      if (id !== undefined) await operation.locator('.parameters input').first().fill(id);
      await operation.locator('button.execute').click();
      const row = operation.locator('.live-responses-table tr.response');
      await row.locator('.response-col_status', { hasText: '200' }).waitFor();
      return row.locator('.response-col_description pre').first().innerText();
    }

    it('/docs shows every digit: answers, lists, examples and the schema', async () => {
      const store = new PlantStore({ baseUrl: service.url, token: service.devToken });
      await store.createPlant({ id: 9007199254740993n, name: 'Monstera', tag: 'aroid' });
      await store.createPlant({ id: -9223372036854775808n, name: 'Smallest' });
      await store.createPlant({ id: 9007199254740992n, name: 'Neighbour' });
      const page = await openDocs();

      const odd = await execute(page, 'getPlant', '9007199254740993');
      expect(odd).toContain('"id": 9007199254740993,');
      expect(odd).toContain('"name": "Monstera"');
      const smallest = await execute(page, 'getPlant', '-9223372036854775808');
      expect(smallest).toContain('"id": -9223372036854775808,');
      const list = await execute(page, 'listPlants');
      for (const id of ['9007199254740993', '-9223372036854775808', '9007199254740992']) {
        expect(list).toContain(`"id": ${id},`);
      }
      expect(list).not.toMatch(/\u2063|"id": "/);

      // The documented example of the answer, as a code block and in the schema view.
      const ok = page.locator(
        '#operations-plants-getPlant .responses-table tr.response[data-code="200"]',
      );
      expect(await ok.locator('.highlight-code').first().innerText()).toContain(
        '"id": 9007199254740993,',
      );
      await ok.locator('button', { hasText: 'Schema' }).click();
      const expand = ok.locator('.model-box button', { hasText: 'Expand all' }).first();
      await expand.click();
      // Swagger UI expands the nested models (the examples among them) over several renders:
      // wait for the digits to be drawn rather than read the box once right after the click.
      const schema = ok.locator('.model-box').first();
      await schema.filter({ hasText: '9007199254740993' }).waitFor();
      await expect(schema.innerText()).resolves.toContain('9007199254740993');
      expect(await schema.innerText()).not.toContain('9007199254740992');
      await page.screenshot({ path: join(OUTPUT, 'docs-exact-ids.png'), fullPage: true });
      await page.close();
    }, 300_000);

    it('the built client runs in the page: ids exact, an unsafe number refused', async () => {
      // Bundled for a browser: a Node built-in anywhere in the client would fail this build.
      const bundle = await build({
        entryPoints: [join(ROOT, 'client/dist/index.js')],
        bundle: true,
        format: 'esm',
        platform: 'browser',
        write: false,
        logLevel: 'silent',
      });
      const page = await browser.newPage();
      await page.goto(`http://localhost:${new URL(service.url).port}/docs`);
      const result = await page.evaluate(
        async ({ code, baseUrl, token }) => {
          const url = URL.createObjectURL(new Blob([code], { type: 'text/javascript' }));
          // Not `import()`: the test's transpiler would turn it into a `require`.
          const load = new Function('url', 'return import(url)');
          const { PlantStore, PlantStoreError, NotFoundError } = await load(url);
          // From this page's origin (localhost) to the API's (127.0.0.1): CORS, as deployed.
          const store = new PlantStore({ baseUrl, token });
          const ids = [2n ** 53n + 1n, -(2n ** 63n), 2n ** 63n - 1n];
          for (const id of ids) {
            await store.deletePlant(id); // Another test may have made it, with another name.
            await store.createPlant({ id, name: `browser ${id}` });
          }
          const read = [];
          for (const id of ids) read.push(await store.getPlant(id));
          const walked = [];
          for await (const plant of store.listPlants({ pageSize: 2 })) walked.push(plant.id);
          let refused = '';
          try {
            // eslint-disable-next-line no-loss-of-precision -- the rounding is what the client must refuse
            await store.getPlant(9007199254740993);
          } catch (error) {
            refused = (error as Error).name;
          }
          const missing = await store.getPlant(404404).catch((error: unknown) => error);
          return {
            read: read.map((plant) => `${typeof plant.id} ${plant.id} ${plant.name}`),
            walked: walked.map((id) => `${typeof id} ${id}`),
            refused,
            missing:
              missing instanceof PlantStoreError ? (missing as Error).message : 'not an error',
            missingClass: missing instanceof NotFoundError ? (missing as Error).name : 'another',
            raw: await store
              .getPlant(ids[1])
              .withResponse()
              .then(
                ({ data, response }: { data: { name: string }; response: Response }) =>
                  `${response.status} ${data.name}`,
              ),
            deleted: [await store.deletePlant(ids[0]), await store.deletePlant(ids[0])],
          };
        },
        { code: bundle.outputFiles[0]!.text, baseUrl: service.url, token: service.devToken },
      );
      expect(result.read).toEqual([
        'bigint 9007199254740993 browser 9007199254740993',
        'bigint -9223372036854775808 browser -9223372036854775808',
        'bigint 9223372036854775807 browser 9223372036854775807',
      ]);
      expect(result.walked).toEqual(
        expect.arrayContaining([
          'bigint 9007199254740993',
          'bigint -9223372036854775808',
          'bigint 9223372036854775807',
        ]),
      );
      expect(new Set(result.walked).size).toBe(result.walked.length);
      expect(result.refused).toBe('TypeError');
      expect(result.missing).toBe('no plant with id 404404');
      expect(result.missingClass).toBe('NotFoundError');
      expect(result.raw).toBe('200 browser -9223372036854775808');
      expect(result.deleted).toEqual([true, false]);
      await page.close();
    }, 300_000);
  },
);
