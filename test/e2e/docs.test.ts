/**
 * The API reference `npm start` serves: `GET /openapi.json` and `GET /docs` without a token,
 * Swagger UI from node_modules (no CDN), and — in a real headless Chromium (Debian's
 * `chromium`) — a person's path through the page: authorize with a token, send POST /plants,
 * see the 200 and the plant, send a bad body, see the 400 Error, from another origin so that
 * the CORS preflight must succeed. Screenshots go to `test-output/` (git-ignored).
 */
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { useLocalService } from '../support/local-service';
import { AnswerChecker } from '../support/openapi-answers';

const ROOT = join(__dirname, '../..');
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
if (!hasBrowser) {
  process.stderr.write(
    `docs.test.ts: browser test skipped: no Chromium at ${CHROMIUM} (set CHROMIUM_PATH, or run .ci/run as root to install Debian's chromium)\n`,
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
    }, 60_000);
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
    }, 120_000);
  },
);
