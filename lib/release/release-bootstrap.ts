/**
 * Whether Deploy can deploy a kept release to a stage: the stage's role reaches only the stage's
 * own bootstrap (its qualifier), so a release whose kept template was synthesized for another
 * qualifier (1.0.0 and 1.1.0: the default one) cannot be deployed through it. Rolling back to
 * one is not supported: a revert released as a new version is (docs/guides/deploying.md,
 * "Rolling back to a release before the stage's bootstrap").
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { UsageError } from '../cli/args';
import { STAGES, type StageName } from '../infra/stages';
import { RELEASES_DIR, RELEASE_STACKS } from './releases';
import { versionArgument } from './versions';

/** The bootstrap qualifier a synthesized template checks for (its `BootstrapVersion` parameter). */
export function templateQualifier(template: {
  Parameters?: Record<string, { Default?: unknown }>;
}): string | undefined {
  const parameter = String(template.Parameters?.BootstrapVersion?.Default ?? '');
  return /^\/cdk-bootstrap\/([^/]+)\/version$/.exec(parameter)?.[1];
}

/**
 * The verdict on deploying `version` (`vX.Y.Z` or `X.Y.Z`) to `stage`; a version that is none, or
 * a stage that does not exist, is a usage mistake (the version names a folder: never a path).
 */
export function checkReleaseBootstrap(
  version: string,
  stage: string,
  dir: string = RELEASES_DIR,
): { ok: boolean; line: string } {
  const number = version.replace(/^v/, '');
  versionArgument(number);
  if (!Object.hasOwn(STAGES, stage)) {
    throw new UsageError(
      `unknown stage ${JSON.stringify(stage)}: ${Object.keys(STAGES).join(' or ')}`,
    );
  }
  const { stackName, qualifier } = STAGES[stage as StageName];
  const kept = RELEASE_STACKS.find((stack) => stack.stackName === stackName);
  const file = join(dir, number, `${stackName}.template.json`);
  if (!kept || !existsSync(file)) {
    return {
      ok: false,
      line: `no kept ${stackName} template of ${number} in releases/: Deploy deploys a kept release only`,
    };
  }
  const found = templateQualifier(JSON.parse(readFileSync(file, 'utf8')));
  if (found !== qualifier) {
    return {
      ok: false,
      line: `${number} deploys ${stackName} on the bootstrap qualifier ${found ?? '(none)'}, not ${stage}'s ${qualifier}: the ${stage} role cannot deploy it. Rolling back to it is not supported: revert its changes on main and release them as a new version (docs/guides/deploying.md, "Rolling back to a release before the stage's bootstrap")`,
    };
  }
  return { ok: true, line: `${number} deploys ${stackName} on ${stage}'s bootstrap ${qualifier}` };
}
