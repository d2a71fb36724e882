/**
 * verify's report never shows a token: a target that echoes the request (a proxy's error page
 * that prints the Authorization header, in its body and a header) is shown with `(hidden)` in
 * the case lines and in the JUnit XML.
 */
import { VERIFY_CASES } from '../../../lib/operator/verify/cases';
import { caseLine, junitXml } from '../../../lib/operator/verify/report';
import { runVerify } from '../../../lib/operator/verify/run';

const TOKEN = `pst_${'T'.repeat(43)}`;
const WRITE_ONLY = `pst_${'W'.repeat(43)}`;

/** Answers every request 502 with the request's Authorization header echoed back. */
const echoing: typeof fetch = async (_url, init) => {
  const authorization = new Headers(init?.headers).get('authorization') ?? '';
  return new Response(
    `Bad gateway: upstream refused ${authorization} (${authorization.slice(7)})`,
    {
      status: 502,
      headers: { 'x-echo': authorization },
    },
  );
};

it('hides both tokens in every case line and in the JUnit XML', async () => {
  const lines: string[] = [];
  const run = await runVerify(
    {
      url: 'http://verify.invalid',
      token: TOKEN,
      writeOnlyToken: WRITE_ONLY,
      timeoutMs: 1_000,
      fetch: echoing,
      onResult: (result) => lines.push(caseLine(result)),
    },
    VERIFY_CASES.filter((c) => c.name.startsWith('scopes:') || c.name.startsWith('read:')),
  );
  const shown = `${lines.join('\n')}\n${junitXml(run)}`;
  expect(run.results.some((r) => r.result === 'fail')).toBe(true);
  expect(shown).toContain('Bearer (hidden)');
  expect(shown).not.toContain(TOKEN);
  expect(shown).not.toContain(WRITE_ONLY);
  expect(shown).not.toMatch(/TTTTTTTT|WWWWWWWW/);
});
