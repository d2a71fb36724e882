/**
 * Reads what `cdk diff` prints for a deployed stack (its resource lines: `[-] AWS::SQS::Queue
 * <path> <logical id> destroy`, `[~] AWS::DynamoDB::Table <path> <logical id> replace`): the
 * deploy workflow's check before prod (each table, key or queue the deployment would remove or
 * replace) and its job summary (each resource's action, and nothing else of the diff: no ARN,
 * account id or address, which the IAM, parameter and output sections print).
 */
import { STATEFUL_TYPES, type Finding } from './stateful';

// cdk colours its output on a terminal; the workflow's is not one, but a copy pasted may be.
// eslint-disable-next-line no-control-regex
const ANSI = /\u001b\[[0-9;]*m/g;

/** The one-word impacts cdk diff writes after a resource's logical id. */
const IMPACTS = new Set(['replace', 'destroy', 'orphan']);

/** One resource line of a diff. */
export interface ResourceChange {
  /** `+` added, `-` removed, `~` changed. */
  readonly sign: '+' | '-' | '~';
  readonly type: string;
  readonly logicalId: string;
  /** `replace`, `may be replaced`, `destroy` or `orphan`, when cdk says one. */
  readonly impact?: string;
}

/** Every resource a `cdk diff` output lists, in its order. */
export function resourceChanges(diff: string): ResourceChange[] {
  const changes: ResourceChange[] = [];
  for (const raw of diff.split('\n')) {
    const line = raw.replace(ANSI, '').trim();
    const match = /^\[([-+~])\] (AWS::\w+::\w+|Custom::\w+) (.+)$/.exec(line);
    if (!match) continue;
    const [, sign, type, rest] = match as unknown as [
      string,
      ResourceChange['sign'],
      string,
      string,
    ];
    // `<path> <logical id> [impact]`, the impact one word or `may be replaced`.
    const words = rest.split(' ').filter(Boolean);
    let impact: string | undefined;
    if (words.slice(-3).join(' ') === 'may be replaced') impact = words.splice(-3).join(' ');
    else if (IMPACTS.has(words.at(-1)!)) impact = words.pop();
    changes.push({ sign, type, logicalId: words.at(-1)!, ...(impact && { impact }) });
  }
  return changes;
}

/** The stateful resources a `cdk diff` output says would be removed or (maybe) replaced. */
export function statefulChanges(diff: string): Finding[] {
  const findings: Finding[] = [];
  for (const { sign, type, logicalId, impact } of resourceChanges(diff)) {
    if (!(type in STATEFUL_TYPES)) continue;
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

const ACTIONS = { '+': 'add', '-': 'remove', '~': 'modify' } as const;

/**
 * The job summary of a `cdk diff`: a Markdown table of each resource's action, type and logical
 * id. A logical id is the template's own name (letters and digits), never an ARN, account id or
 * address; a line that is not a resource line is not copied.
 */
export function diffSummary(diff: string, title: string): string {
  const changes = resourceChanges(diff).filter(({ logicalId }) => /^[A-Za-z0-9]+$/.test(logicalId));
  const rows = changes.map(
    ({ sign, type, logicalId, impact }) =>
      `| ${ACTIONS[sign]}${impact ? ` (${impact})` : ''} | ${type} | ${logicalId} |`,
  );
  return [
    `## ${title}`,
    '',
    rows.length === 0
      ? 'No resource changes.'
      : ['| action | type | logical id |', '| --- | --- | --- |', ...rows].join('\n'),
    '',
  ].join('\n');
}
