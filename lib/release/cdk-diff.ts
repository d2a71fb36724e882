/**
 * Reads what `cdk diff` prints for a deployed stack (its resource lines: `[-] AWS::SQS::Queue
 * <path> <logical id> destroy`, `[~] AWS::DynamoDB::Table <path> <logical id> replace`) and
 * finds each table, key or queue the deployment would remove or replace: the deploy workflow's
 * check before prod.
 */
import { STATEFUL_TYPES, type Finding } from './stateful';

// cdk colours its output on a terminal; the workflow's is not one, but a copy pasted may be.
// eslint-disable-next-line no-control-regex
const ANSI = /\u001b\[[0-9;]*m/g;

/** The one-word impacts cdk diff writes after a resource's logical id. */
const IMPACTS = new Set(['replace', 'destroy', 'orphan']);

/** The stateful resources a `cdk diff` output says would be removed or (maybe) replaced. */
export function statefulChanges(diff: string): Finding[] {
  const findings: Finding[] = [];
  for (const raw of diff.split('\n')) {
    const line = raw.replace(ANSI, '').trim();
    const match = /^\[([-~])\] (AWS::\w+::\w+) (.+)$/.exec(line);
    if (!match) continue;
    const [, sign, type, rest] = match as unknown as [string, string, string, string];
    if (!(type in STATEFUL_TYPES)) continue;
    // `<path> <logical id> [impact]`, the impact one word or `may be replaced`.
    const words = rest.split(' ').filter(Boolean);
    let impact: string | undefined;
    if (words.slice(-3).join(' ') === 'may be replaced') impact = words.splice(-3).join(' ');
    else if (IMPACTS.has(words.at(-1)!)) impact = words.pop();
    const logicalId = words.at(-1)!;
    if (sign === '-') {
      findings.push({
        logicalId,
        type,
        message: `${type} ${logicalId} would be removed from the stack (${impact ?? 'destroy'}): its data ${impact === 'orphan' ? 'is left behind, no longer the service’s' : 'is deleted'}`,
      });
    } else if (impact === 'replace' || impact === 'may be replaced') {
      findings.push({
        logicalId,
        type,
        message: `${type} ${logicalId} ${impact === 'replace' ? 'would be replaced' : 'may be replaced'}: the new one starts empty`,
      });
    }
  }
  return findings;
}
