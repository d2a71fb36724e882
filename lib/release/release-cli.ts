/**
 * `npm run release -- check-diff|summarize-diff|keep|check-release|check-start`: the release
 * procedure's steps that are code (docs/guides/deploying.md, "Releasing"). `check-diff` reads
 * `cdk diff` of a deployed stack and refuses a deployment that would remove or replace a table,
 * key or queue; `check-release` refuses a release the stage's role cannot deploy
 * (`release-bootstrap.ts`); `check-start` checks after a deployment that the functions start
 * (`start-check.ts`); `keep` writes a release's templates and `openapi.json` under
 * `releases/<version>/` (`keep.ts`).
 */
import { readFileSync } from 'node:fs';
import { UsageError, commandError, parseCommandLine } from '../cli/args';
import { failureExitCode, type CliIo } from '../cli/run';
import { diffSummary, statefulChanges } from './cdk-diff';
import { keep } from './keep';
import { checkReleaseBootstrap } from './release-bootstrap';
import { apiUrlFromOutputs, checkStart } from './start-check';
import { versionArgument } from './versions';

export const RELEASE_HELP = `Usage: npm run release -- <command> [options]

Commands:
  check-diff <file> [--allow-replacement]
                 Read the output of \`cdk diff\` against a deployed stack and fail when a
                 table, KMS key or SQS queue would be removed or replaced (a new one starts
                 empty). Prints one line per such resource. --allow-replacement (the deploy
                 workflow's documented override) prints them and succeeds.
  summarize-diff <file> [--title <text>]
                 Print the resources a \`cdk diff\` output would add, remove or modify (action,
                 type, logical id) as a Markdown table for the deploy job's summary, and
                 nothing else of the diff: no ARN, account id or address.
  keep <version> Synthesize the default and prod templates (cdk synth) and copy openapi.json
                 into releases/<version>/, the release the next one is compared with.
  check-release <version> --stage <stage>
                 Before Deploy deploys a release: fail unless its kept template
                 (releases/<version>/) was synthesized for the stage's own bootstrap
                 qualifier, the only one the stage's role reaches (1.0.0 and 1.1.0 were not:
                 rolling back to them is not supported; release a revert).
  check-start <file>
                 After a deployment: read ApiUrl from \`cdk deploy --outputs-file\`'s file and
                 send one request with a made-up token. The authorizer must refuse it (403):
                 a 500 means the functions do not start. Prints one line, never the URL.

Exit codes: 0 done, 1 refused or failed, 2 a usage mistake.
`;

/** Runs the CLI and returns its exit code; never throws. */
export async function runReleaseCli(argv: readonly string[], io: CliIo): Promise<number> {
  try {
    const [command, ...rest] = argv;
    if (command === '--help' || command === '-h') {
      io.out(RELEASE_HELP);
      return 0;
    }
    if (command === 'check-diff') {
      const line = parseCommandLine(rest, { 'allow-replacement': { type: 'boolean' } }, true);
      if (line.help) return (io.out(RELEASE_HELP), 0);
      const [file, ...extra] = line.positionals;
      if (file === undefined || extra.length > 0) {
        throw new UsageError('check-diff takes one file: the output of cdk diff');
      }
      return checkDiff(readJobFile(file), line.values['allow-replacement'] === true, io);
    }
    if (command === 'summarize-diff') {
      const line = parseCommandLine(rest, { title: { type: 'string' } }, true);
      if (line.help) return (io.out(RELEASE_HELP), 0);
      const [file, ...extra] = line.positionals;
      if (file === undefined || extra.length > 0) {
        throw new UsageError('summarize-diff takes one file: the output of cdk diff');
      }
      const title = (line.values.title as string | undefined) ?? 'Changes to the stack';
      io.out(diffSummary(readJobFile(file), title));
      return 0;
    }
    if (command === 'keep') {
      const line = parseCommandLine(rest, {}, true);
      if (line.help) return (io.out(RELEASE_HELP), 0);
      const [version, ...extra] = line.positionals;
      if (version === undefined || extra.length > 0) throw new UsageError('keep takes a version');
      versionArgument(version);
      io.out(await keep(version));
      return 0;
    }
    if (command === 'check-release') {
      const line = parseCommandLine(rest, { stage: { type: 'string' } }, true);
      if (line.help) return (io.out(RELEASE_HELP), 0);
      const [version, ...extra] = line.positionals;
      const stage = line.values.stage as string | undefined;
      if (version === undefined || extra.length > 0 || stage === undefined) {
        throw new UsageError('check-release takes a version and --stage <stage>');
      }
      return answer(checkReleaseBootstrap(version, stage), io);
    }
    if (command === 'check-start') {
      const line = parseCommandLine(rest, {}, true);
      if (line.help) return (io.out(RELEASE_HELP), 0);
      const [file, ...extra] = line.positionals;
      if (file === undefined || extra.length > 0) {
        throw new UsageError('check-start takes one file: cdk deploy --outputs-file');
      }
      return answer(await checkStart(apiUrlFromOutputs(readJobFile(file))), io);
    }
    throw commandError(command, [
      'check-diff',
      'summarize-diff',
      'keep',
      'check-release',
      'check-start',
    ]);
  } catch (error) {
    return failureExitCode('release', error, io.err);
  }
}

/** A check's verdict by the exit rule: on stdout when it passes, else `release: …` on stderr. */
function answer(verdict: { readonly ok: boolean; readonly line: string }, io: CliIo): number {
  if (verdict.ok) io.out(verdict.line);
  else io.err(`release: ${verdict.line}`);
  return verdict.ok ? 0 : 1;
}

/** A file the deploy job saved (`cdk diff`'s output, `cdk deploy`'s outputs). */
function readJobFile(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    throw new UsageError(`cannot read ${file}`);
  }
}

/** The verdict on one `cdk diff` output. */
export function checkDiff(diff: string, allowReplacement: boolean, io: CliIo): number {
  const findings = statefulChanges(diff);
  if (findings.length === 0) {
    io.out('No table, key or queue would be removed or replaced.');
    return 0;
  }
  for (const finding of findings) io.out(`- ${finding.message}`);
  if (allowReplacement) {
    io.out(`Deploying anyway: allow-replacement was given (${findings.length} above).`);
    return 0;
  }
  io.err(
    `release: refused, ${findings.length} stateful resource(s) would lose their data; see docs/guides/deploying.md ("Releasing") before deploying with allow-replacement`,
  );
  return 1;
}
