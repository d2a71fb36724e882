/**
 * What the workflows that hold an OIDC token do with it: no dependency's install script runs in
 * such a job; Deploy runs the checks of the run's own commit (main's, for prod) around whatever
 * release it deploys, and its guard refuses a release built for another bootstrap before any of it
 * runs; Release client publishes only the commit npm's provenance names (its script run here
 * against a real repository). test/house/unit/workflows.test.ts checks the rest of them.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';

const WORKFLOWS = join(__dirname, '../../.github/workflows');

interface Step {
  id?: string;
  name?: string;
  if?: string;
  uses?: string;
  run?: string;
  with?: Record<string, string>;
  env?: Record<string, string>;
}
interface Job {
  needs?: string;
  permissions?: Record<string, string>;
  steps: Step[];
}
const workflow = (file: string) =>
  parse(readFileSync(join(WORKFLOWS, file), 'utf8')) as { jobs: Record<string, Job> };
const runs = (job: Job) => job.steps.map((step) => step.run ?? '');

it.each(readdirSync(WORKFLOWS).filter((file) => file.endsWith('.yml')))(
  '%s: a job holding an OIDC token runs no dependency’s install script',
  (file) => {
    for (const [name, job] of Object.entries(workflow(file).jobs)) {
      if (job.permissions?.['id-token'] !== 'write') continue;
      const installs = runs(job)
        .flatMap((run) => run.split('\n'))
        .filter((line) => /\bnpm (ci|install|i)\b/.test(line));
      expect([name, installs.length > 0]).toEqual([name, true]);
      for (const line of installs)
        expect([name, line]).toEqual([name, expect.stringContaining('--ignore-scripts')]);
    }
  },
);

describe('Deploy', () => {
  const { guard, deploy } = workflow('deploy.yml').jobs as { guard: Job; deploy: Job };

  it('runs the run’s own commit’s checks around the commit it deploys', () => {
    const tooling = deploy.steps.find(
      (step) => step.uses?.startsWith('actions/checkout@') && step.with?.path === '.tooling',
    );
    expect(tooling?.with).toEqual({
      'persist-credentials': false,
      ref: '${{ github.sha }}',
      path: '.tooling',
    });
    const release = runs(deploy)
      .flatMap((run) => run.split('\n'))
      .filter((line) => line.includes('release --'));
    expect(release.map((line) => /release -- (\S+)/.exec(line)![1])).toEqual([
      'summarize-diff',
      'check-diff',
      'check-start',
    ]);
    for (const line of release)
      expect(line).toContain('npm run --silent --prefix .tooling release --');
    // The deployed commit's CLI deploys it.
    expect(runs(deploy).some((run) => run.startsWith('npx cdk deploy'))).toBe(true);
  });

  it('the guard refuses, before the deploy job, a prod release built for another bootstrap', () => {
    const check = guard.steps.find((step) => step.run?.includes('release -- check-release'));
    expect(check?.if).toBe("steps.stage.outputs.stage == 'prod' && inputs.version != ''");
    expect(check?.run).toContain('check-release "$VERSION" --stage "$STAGE"');
    expect(guard.permissions).toBeUndefined();
    expect(deploy.needs).toBe('guard');
  });
});

describe('Release client: the commit built is the one provenance names', () => {
  const job = workflow('release-client.yml').jobs.publish!;
  const script = job.steps.find((step) => step.id === 'tag')!.run!;
  let repo: string;
  let head: string;
  beforeAll(() => {
    repo = mkdtempSync(join(tmpdir(), 'plant-store-release-'));
    const git = (...args: string[]) =>
      execFileSync('git', args, { cwd: repo, encoding: 'utf8' }).trim();
    git('init', '-q', '-b', 'main');
    mkdirSync(join(repo, 'client'));
    for (const version of ['1.0.0', '1.1.0']) {
      writeFileSync(join(repo, 'client/package.json'), JSON.stringify({ version }));
      git('add', '.');
      git('-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-q', '-m', version);
      git('tag', `client-v${version}`);
    }
    head = git('rev-parse', 'HEAD');
  });
  afterAll(() => rmSync(repo, { recursive: true, force: true }));

  const run = (TAG: string) =>
    spawnSync('bash', ['--noprofile', '--norc', '-eo', 'pipefail', '-c', script], {
      cwd: repo,
      env: { PATH: process.env.PATH, TAG, REF: 'refs/heads/main', GITHUB_SHA: head },
      encoding: 'utf8',
    });

  it('publishes a tag at main’s head, the commit checked out', () => {
    expect(run('client-v1.1.0').status).toBe(0);
  });

  it('refuses an older tag on main, rather than building a commit provenance does not name', () => {
    const older = run('client-v1.0.0');
    expect(older.status).toBe(1);
    expect(older.stdout).toContain(`::error::client-v1.0.0 is not main's head ${head}`);
    expect(runs(job).join('\n')).not.toMatch(/git checkout/);
  });
});
