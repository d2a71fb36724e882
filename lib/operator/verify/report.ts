/** The report of a run: a line per case and a summary for people, JUnit XML for CI systems. */
import type { CaseResult, VerifyRun } from './run';

/** `text` with every one of `secrets` (the tokens) replaced by `(hidden)`. */
export function hidden(text: string, secrets: readonly (string | undefined)[]): string {
  let shown = text;
  for (const secret of secrets) if (secret) shown = shown.split(secret).join('(hidden)');
  return shown;
}

/** One case's line: `pass  <name>`, `FAIL  <name>: expected …, got …`, `skip  <name>: why`. */
export function caseLine(result: CaseResult): string {
  const label = { pass: 'pass', fail: 'FAIL', skip: 'skip' }[result.result];
  return `${label}  ${result.name}${result.detail ? ` — ${result.detail}` : ''}`;
}

/** `N passed, N failed, N skipped`. */
export function summaryLine(results: readonly CaseResult[]): string {
  const count = (kind: CaseResult['result']) => results.filter((r) => r.result === kind).length;
  return `${count('pass')} passed, ${count('fail')} failed, ${count('skip')} skipped`;
}

const escape = (text: string) =>
  text
    // eslint-disable-next-line no-control-regex
    .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/g, ' ')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;');

/** The run as JUnit XML: one testsuite, a testcase per case (its area as the classname). */
export function junitXml(run: VerifyRun, suite = 'plant-store verify'): string {
  const { results } = run;
  const count = (kind: CaseResult['result']) => results.filter((r) => r.result === kind).length;
  const seconds = (ms: number) => (ms / 1000).toFixed(3);
  const total = results.reduce((sum, r) => sum + r.ms, 0);
  const cases = results.map((r) => {
    const area = r.name.split(':')[0]!.trim();
    const open = `    <testcase classname="verify.${escape(area)}" name="${escape(r.name)}" time="${seconds(r.ms)}"`;
    if (r.result === 'pass') return `${open}/>`;
    const inner =
      r.result === 'skip'
        ? `<skipped message="${escape(r.detail ?? '')}"/>`
        : `<failure message="${escape(r.detail ?? '')}">${escape(
            r.expected === undefined ? (r.detail ?? '') : `expected: ${r.expected}\ngot: ${r.got}`,
          )}</failure>`;
    return `${open}>\n      ${inner}\n    </testcase>`;
  });
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites tests="${results.length}" failures="${count('fail')}" skipped="${count('skip')}" time="${seconds(total)}">`,
    `  <testsuite name="${escape(suite)}" tests="${results.length}" failures="${count('fail')}" errors="0" skipped="${count('skip')}" time="${seconds(total)}">`,
    ...cases,
    '  </testsuite>',
    '</testsuites>',
    '',
  ].join('\n');
}
