/**
 * The GitHub workflows: valid against the workflow schema (action-validator, the schema GitHub's
 * own editor uses), every action pinned to a full commit SHA with its version beside it, no token
 * left in `.git/config`, Dependabot watching actions and npm; CI installs chromium and tests;
 * Deploy runs by hand only, prod only from main (a release tag named, and checked to be on
 * main) and dev only from a branch (its guard script run here against a real git repository),
 * assumes a role through OIDC only in the deploy job, masks the account and the alarm address,
 * summarizes the change set without its ARNs and refuses to lose a table, key or queue before
 * `cdk deploy`; the client is published by hand from main through npm trusted publishing, no
 * token anywhere.
 */
import { validateWorkflow } from '@action-validator/core';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { DEPLOY_REFS, DEPLOY_WORKFLOW, STAGES } from '../../../lib/infra/stages';

const ROOT = join(__dirname, '../../..');
const WORKFLOWS = join(ROOT, '.github/workflows');
const read = (file: string) => readFileSync(join(WORKFLOWS, file), 'utf8');
const FILES = readdirSync(WORKFLOWS).filter((file) => file.endsWith('.yml'));

interface Step {
  id?: string;
  name?: string;
  uses?: string;
  run?: string;
  with?: Record<string, unknown>;
  env?: Record<string, string>;
}
interface Job {
  needs?: string;
  defaults?: Record<string, unknown>;
  environment?: string;
  permissions?: Record<string, string>;
  outputs?: Record<string, string>;
  env?: Record<string, string>;
  steps: Step[];
}
interface Workflow {
  on: Record<string, { tags?: string[]; inputs?: Record<string, { options?: string[] }> }>;
  permissions: Record<string, string>;
  jobs: Record<string, Job>;
}
const workflow = (file: string) => parse(read(file)) as Workflow;
const stepsOf = (w: Workflow) => Object.values(w.jobs).flatMap((job) => job.steps);

it('has the three workflows', () => {
  expect(FILES.sort()).toEqual(['ci.yml', 'deploy.yml', 'release-client.yml']);
});

it.each(FILES)('%s is a valid workflow', (file) => {
  expect(validateWorkflow(read(file)).errors).toEqual([]);
});

it('the validator does reject a broken workflow', () => {
  const broken = read('ci.yml').replace('runs-on: ubuntu-24.04', 'runs-on: [1, {}]');
  expect(validateWorkflow(broken).errors.length).toBeGreaterThan(0);
});

it.each(FILES)('%s pins every action to a full commit SHA, its version in a comment', (file) => {
  const uses = read(file)
    .split('\n')
    .filter((line) => /^\s*-?\s*uses:/.test(line));
  expect(uses.length).toBeGreaterThan(0);
  for (const line of uses) {
    expect(line).toMatch(/uses: [\w.-]+\/[\w.-]+@[0-9a-f]{40} # v\d+\.\d+\.\d+$/);
  }
});

it('the same action is pinned to the same commit everywhere', () => {
  const pins = new Map<string, Set<string>>();
  for (const file of FILES) {
    for (const [, action, sha] of read(file).matchAll(/uses: ([\w./-]+)@([0-9a-f]{40})/g)) {
      pins.set(action!, (pins.get(action!) ?? new Set()).add(sha!));
    }
  }
  for (const [action, shas] of pins) expect([action, shas.size]).toEqual([action, 1]);
});

it.each(FILES)('%s checks out without leaving the token in .git/config', (file) => {
  const checkouts = stepsOf(workflow(file)).filter((step) =>
    step.uses?.startsWith('actions/checkout@'),
  );
  expect(checkouts.length).toBeGreaterThan(0);
  for (const step of checkouts) expect(step.with?.['persist-credentials']).toBe(false);
});

it.each(FILES)('%s grants only contents: read to the workflow as a whole', (file) => {
  expect(workflow(file).permissions).toEqual({ contents: 'read' });
});

it('Dependabot proposes updates of the actions and of npm (root and client)', () => {
  const config = parse(readFileSync(join(ROOT, '.github/dependabot.yml'), 'utf8')) as {
    version: number;
    updates: { 'package-ecosystem': string; directory?: string; directories?: string[] }[];
  };
  expect(config.version).toBe(2);
  const byEcosystem = Object.fromEntries(
    config.updates.map((u) => [u['package-ecosystem'], u.directories ?? [u.directory]]),
  );
  expect(byEcosystem).toEqual({ 'github-actions': ['/'], npm: ['/', '/client'] });
});

describe('CI', () => {
  const runs = stepsOf(workflow('ci.yml')).map((step) => step.run ?? '');
  const ciRun = readFileSync(join(ROOT, '.ci/run'), 'utf8');

  it('installs from the lock file, runs npm test and the parse budget, and synthesizes each stage', () => {
    expect(runs).toContain('bash .ci/run');
    expect(ciRun).toMatch(/^npm ci /m);
    // After the suites, alone: the one speed promise the suite does not time.
    expect(ciRun).toMatch(/^npm test\n(?:#.*\n)*npm run bench -- --phases parse$/m);
    const synth = runs.find((run) => run.includes('cdk synth'))!;
    for (const stage of Object.keys(STAGES)) expect(synth).toContain(`-c stage=${stage}`);
  });

  it('installs chromium through sudo when not root, and fails in CI without one', () => {
    expect(ciRun).toMatch(/as_root=\(sudo -n\)/);
    expect(ciRun).toMatch(/apt-get install -y -q chromium/);
    expect(ciRun).toMatch(/if \[ -n "\$\{CI:-\}" \]; then[^]*?exit 1/);
  });

  it('the browser test fails in CI when chromium is missing, instead of skipping', () => {
    const result = spawnSync(
      process.execPath,
      [require.resolve('jest/bin/jest'), '--ci', '--runTestsByPath', 'test/local/e2e/docs.test.ts'],
      {
        cwd: ROOT,
        env: { ...process.env, CI: 'true', CHROMIUM_PATH: '/nonexistent/chromium' },
        encoding: 'utf8',
        timeout: 120_000,
      },
    );
    expect(result.status).not.toBe(0);
    expect(result.stderr).toContain('no Chromium at /nonexistent/chromium in CI');
  }, 300_000);
});

describe('Deploy', () => {
  const deploy = workflow('deploy.yml');
  const guard = deploy.jobs.guard!;
  const job = deploy.jobs.deploy!;
  const script = guard.steps.find((step) => step.id === 'stage')!.run!;

  it('runs by hand only, for a chosen stage: no push or tag starts it', () => {
    expect(Object.keys(deploy.on)).toEqual(['workflow_dispatch']);
    expect(deploy.on.workflow_dispatch!.inputs!.stage!.options).toEqual(Object.keys(STAGES));
  });

  it('deploys only after the guard, the commit it chose, to the stage it decided, in its environment', () => {
    expect(job.needs).toBe('guard');
    expect(job.environment).toBe('${{ needs.guard.outputs.stage }}');
    expect(job.env?.STAGE).toBe('${{ needs.guard.outputs.stage }}');
    expect(job.steps[0]!.with?.ref).toBe('${{ needs.guard.outputs.sha }}');
    expect(guard.permissions).toBeUndefined();
    expect(guard.environment).toBeUndefined();
  });

  it("the guard's refs are the ones the deploy roles trust, and the roles trust this file", () => {
    expect(DEPLOY_REFS).toEqual({ dev: ['refs/heads/*'], prod: ['refs/heads/main'] });
    const patterns = [...script.matchAll(/^\s*(refs\/[^)\s]+)\)/gm)].map((m) => m[1]);
    expect(patterns).toEqual([...DEPLOY_REFS.dev, ...DEPLOY_REFS.prod]);
    expect(DEPLOY_WORKFLOW).toBe('.github/workflows/deploy.yml');
  });

  describe('the guard script, run against a real repository', () => {
    let repo: string;
    let onMain: string;
    let mainHead: string;
    beforeAll(() => {
      repo = mkdtempSync(join(tmpdir(), 'plant-store-guard-'));
      const git = (...args: string[]) =>
        execFileSync('git', args, { cwd: repo, encoding: 'utf8' }).trim();
      git('init', '-q', '-b', 'main');
      const commit = (message: string) =>
        git(
          '-c',
          'user.name=t',
          '-c',
          'user.email=t@example.com',
          'commit',
          '-q',
          '--allow-empty',
          '-m',
          message,
        );
      commit('a');
      onMain = git('rev-parse', 'HEAD');
      git('tag', 'v1.1.0');
      commit('c');
      mainHead = git('rev-parse', 'HEAD');
      git('checkout', '-q', '-b', 'feature', onMain);
      commit('b');
      git('tag', 'v9.9.9');
      git('checkout', '-q', 'main');
    });
    afterAll(() => rmSync(repo, { recursive: true, force: true }));

    /** Runs the guard's step as GitHub would: bash -e, the step's env, GITHUB_OUTPUT. */
    function runGuard(env: { STAGE: string; REF: string; VERSION?: string }) {
      const output = join(repo, `output-${Math.random()}`);
      writeFileSync(output, '');
      const result = spawnSync('bash', ['--noprofile', '--norc', '-eo', 'pipefail', '-c', script], {
        cwd: repo,
        env: {
          PATH: process.env.PATH ?? '',
          STAGE: env.STAGE,
          REF: env.REF,
          VERSION: env.VERSION ?? '',
          GITHUB_SHA: mainHead,
          GITHUB_OUTPUT: output,
        },
        encoding: 'utf8',
      });
      return { status: result.status, stdout: result.stdout, output: readFileSync(output, 'utf8') };
    }

    it('dev from a branch: goes on, at the run’s commit', () => {
      const run = runGuard({ STAGE: 'dev', REF: 'refs/heads/feature' });
      expect(run.status).toBe(0);
      expect(run.output).toBe(`stage=dev\nsha=${mainHead}\n`);
    });

    it('prod from main: goes on, at main, or at the release tag named', () => {
      expect(runGuard({ STAGE: 'prod', REF: 'refs/heads/main' }).output).toBe(
        `stage=prod\nsha=${mainHead}\n`,
      );
      const tagged = runGuard({ STAGE: 'prod', REF: 'refs/heads/main', VERSION: 'v1.1.0' });
      expect(tagged.status).toBe(0);
      expect(tagged.output).toBe(`stage=prod\nsha=${onMain}\n`);
    });

    it.each([
      ['prod', 'refs/heads/feature', '', 'prod deploys only from main, not refs/heads/feature'],
      ['prod', 'refs/tags/v1.1.0', '', 'prod deploys only from main, not refs/tags/v1.1.0'],
      ['prod', 'refs/pull/7/merge', '', 'not refs/pull/7/merge'],
      ['prod', 'refs/heads/main', 'v9.9.9', 'prod deploys only a tag on main; v9.9.9 is not'],
      ['prod', 'refs/heads/main', 'v2.0.0', 'no tag v2.0.0'],
      ['prod', 'refs/heads/main', 'main~1', 'version must be a release tag vX.Y.Z, not main~1'],
      [
        'dev',
        'refs/tags/v1.1.0',
        '',
        'dev deploys a branch of this repository, not refs/tags/v1.1.0',
      ],
      [
        'dev',
        'refs/pull/7/merge',
        '',
        'dev deploys a branch of this repository, not refs/pull/7/merge',
      ],
      ['staging', 'refs/heads/main', '', 'unknown stage staging'],
    ])('%s from %s (version %j): refused', (STAGE, REF, VERSION, message) => {
      const run = runGuard({ STAGE, REF, VERSION });
      expect(run.status).toBe(1);
      expect(run.stdout).toContain(`::error::`);
      expect(run.stdout).toContain(message);
      expect(run.output).toBe('');
    });
  });

  it('assumes a role through OIDC in the deploy job only, with no stored keys', () => {
    expect(job.permissions).toEqual({ contents: 'read', 'id-token': 'write' });
    const credentials = job.steps.find((step) =>
      step.uses?.startsWith('aws-actions/configure-aws-credentials@'),
    );
    expect(credentials?.with).toEqual({
      'role-to-assume': '${{ vars.AWS_DEPLOY_ROLE_ARN }}',
      'aws-region': '${{ vars.AWS_REGION }}',
    });
    // One secret only: the stage's Plant Store token (not an AWS key) of the verify step.
    expect(read('deploy.yml')).not.toMatch(/aws-access-key-id|secrets\.(?!VERIFY_TOKEN\b)/);
    const holders = job.steps.filter((step) => JSON.stringify(step).includes('secrets.'));
    expect(holders.map((step) => step.name)).toEqual(['Verify the deployment']);
  });

  it('verifies the stage it deployed after the start check: every case on dev, read-only on prod', () => {
    const names = job.steps.map((step) => step.name);
    expect(names.indexOf('Verify the deployment')).toBe(names.indexOf('The functions start') + 1);
    const verify = job.steps.find((step) => step.name === 'Verify the deployment')!;
    expect(verify.run).toContain(
      'npm run --silent --prefix .tooling verify -- --outputs "$PWD/cdk-outputs.json"',
    );
    expect(verify.run).toContain('if [ "$STAGE" = prod ]; then read_only=(--read-only); fi');
  });

  it('keeps no dependency cache in the job that holds deploy credentials', () => {
    const node = job.steps.find((step) => step.uses?.startsWith('actions/setup-node@'))!;
    expect(node.with).toMatchObject({ 'package-manager-cache': false });
    expect(node.with).not.toHaveProperty('cache');
  });

  it('masks the account id and the alarm address, summarizes the change set without the diff, refuses to lose a table, key or queue, deploys, then checks the functions start', () => {
    const runs = job.steps.map((step) => step.run ?? '');
    const mask = runs.findIndex((run) => run.includes('::add-mask::'));
    const diff = runs.findIndex((run) => run.includes('npx cdk diff'));
    const check = runs.findIndex((run) =>
      run.includes('release -- check-diff "$PWD/cdk-diff.txt"'),
    );
    const deployed = runs.findIndex((run) => run.startsWith('npx cdk deploy'));
    expect([mask, diff, check, deployed].every((i) => i >= 0)).toBe(true);
    expect(mask).toBeLessThan(diff);
    expect(diff).toBeLessThan(check);
    expect(check).toBeLessThan(deployed);
    expect(runs[mask]).toContain('aws sts get-caller-identity --query Account');
    expect(runs[mask]).toContain('::add-mask::$ALARM_EMAIL');
    expect(runs[diff]).toContain('--change-set -c stage="$STAGE" -c alarmEmail="$ALARM_EMAIL"');
    // The raw diff (ARNs, the account id, the alarm address) goes to a file, never the log or
    // the summary; only summarize-diff's table reaches the summary.
    expect(runs[diff]).toContain('> cdk-diff.txt 2>&1');
    expect(read('deploy.yml')).not.toMatch(/cat cdk-diff|cdk-diff\.txt \|/);
    const summaryLines = runs[diff]!.split('\n').filter((line) => line.includes('STEP_SUMMARY'));
    expect(summaryLines).toEqual([
      'npm run --silent --prefix .tooling release -- summarize-diff "$PWD/cdk-diff.txt" --title "Changes to the $STAGE stack" | tee -a "$GITHUB_STEP_SUMMARY"',
    ]);
    expect(runs[check]).toContain('--allow-replacement');
    expect(runs[deployed]).toBe(
      'npx cdk deploy --no-notices --require-approval never -c stage="$STAGE" -c alarmEmail="$ALARM_EMAIL" --outputs-file cdk-outputs.json',
    );
    // Then the functions must start: the authorizer refuses a made-up token.
    expect(runs[deployed + 1]).toBe(
      'npm run --silent --prefix .tooling release -- check-start "$PWD/cdk-outputs.json"',
    );
    expect(job.defaults).toEqual({ run: { shell: 'bash' } });
    expect(job.env?.ALLOW_REPLACEMENT).toBe("${{ inputs.allow-replacement && 'true' || 'false' }}");
    expect(job.env?.ALARM_EMAIL).toBe('${{ vars.ALARM_EMAIL }}');
  });
});

describe('Release client', () => {
  const release = workflow('release-client.yml');
  const job = release.jobs.publish!;
  const runs = job.steps.map((step) => step.run ?? '');

  it('runs by hand only (on main, for a tag): a pushed tag starts nothing', () => {
    expect(Object.keys(release.on)).toEqual(['workflow_dispatch']);
    const check = runs.find((run) => run.includes('client-v$version'))!;
    expect(check).toContain('if [ "$REF" != refs/heads/main ]');
    expect(check).toContain('git merge-base --is-ancestor "$sha" "$GITHUB_SHA"');
  });

  it('publishes with npm trusted publishing in the npm environment: no token anywhere', () => {
    expect(job.environment).toBe('npm');
    expect(job.permissions).toEqual({ contents: 'read', 'id-token': 'write' });
    expect(runs).toContain(
      'npm publish --workspace @plant-store/client --provenance --access public',
    );
    const steps = job.steps.map(({ run, with: w, env }) => ({ run, with: w, env }));
    expect(JSON.stringify(steps)).not.toMatch(/NPM_TOKEN|NODE_AUTH_TOKEN|secrets\.|registry-url/);
    expect(runs.some((run) => run.includes('npm --version'))).toBe(true);
  });
});
