/**
 * Each stage's bootstrap in its own toolkit stack: the deploying guide's setup commands, run with
 * stand-ins for `npx`, `aws` and `gh` that record their arguments, give the same `cdk bootstrap`
 * as `bootstrapArgs`; the real CDK CLI, given those arguments against a stand-in AWS endpoint,
 * creates `PlantStoreToolkit-<stage>` with the stage's qualifier, policies and boundary, never
 * touching `CDKToolkit`; the dev environment the guide sets up admits every branch the dev role
 * trusts. The stage's stack names no lookup role, and Deploy's check-release takes a release
 * built for the stage's bootstrap and refuses one that is not (1.1.0).
 */
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bootstrapArgs, toolkitStackName } from '../../lib/infra/bootstrap';
import { DEPLOY_REFS, STAGES, type StageName } from '../../lib/infra/stages';
import { checkReleaseBootstrap } from '../../lib/release/release-bootstrap';
import { synthApp } from '../support/cdk-app';

const ROOT = join(__dirname, '../..');
const STAGE_NAMES = Object.keys(STAGES) as StageName[];
const ACCOUNT = '111111111111';
const REGION = 'eu-west-1';

const temp = mkdtempSync(join(tmpdir(), 'plant-store-bootstrap-'));
afterAll(() => rmSync(temp, { recursive: true, force: true }));

/** The guide's shell blocks. */
const blocks = [
  ...readFileSync(join(ROOT, 'docs/guides/deploying.md'), 'utf8').matchAll(
    /^```sh\n([^]*?)^```$/gm,
  ),
].map((match) => match[1]!);

/** Runs a shell block with `npx`, `aws` and `gh` recording their arguments; the calls made. */
function runBlock(block: string, env: Record<string, string>): string[][] {
  const bin = join(temp, `bin-${Math.random()}`);
  mkdirSync(bin);
  const calls = join(bin, 'calls');
  writeFileSync(calls, '');
  for (const name of ['npx', 'aws', 'gh']) {
    writeFileSync(
      join(bin, name),
      `#!/bin/sh\nexec "${process.execPath}" -e 'require("fs").appendFileSync(process.env.CALLS, JSON.stringify(process.argv.slice(1)) + "\\n")' ${name} "$@"\n`,
    );
    chmodSync(join(bin, name), 0o755);
  }
  const result = spawnSync('bash', ['--noprofile', '--norc', '-e', '-c', block], {
    env: { PATH: `${bin}:${process.env.PATH}`, CALLS: calls, ...env },
    encoding: 'utf8',
  });
  expect(result.stderr).toBe('');
  expect(result.status).toBe(0);
  return readFileSync(calls, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as string[]);
}

describe.each(STAGE_NAMES)('%s', (stage) => {
  const expected = bootstrapArgs({ stage, ...STAGES[stage], account: ACCOUNT, region: REGION });

  it('the guide bootstraps the stage in its own toolkit stack, as bootstrapArgs says', () => {
    const setup = blocks.filter((block) => /cdk bootstrap[^\n]*--qualifier/.test(block));
    expect(setup).toHaveLength(1);
    const calls = runBlock(setup[0]!, { ACCOUNT, AWS_REGION: REGION, STAGE: stage });
    const bootstraps = calls.filter((call) => call[0] === 'npx' && call[2] === 'bootstrap');
    expect(bootstraps).toEqual([['npx', ...expected]]);
    expect(expected).toEqual(
      expect.arrayContaining(['--toolkit-stack-name', toolkitStackName(stage)]),
    );
  });

  it('the CDK CLI, given those arguments, creates PlantStoreToolkit-<stage> and leaves CDKToolkit alone', async () => {
    const requests = await bootstrapAgainstStandIn(expected.slice(1));
    const changeSets = requests.filter((r) => r.get('Action') === 'CreateChangeSet');
    expect(changeSets).toHaveLength(1);
    const [changeSet] = changeSets;
    expect(changeSet!.get('StackName')).toBe(`PlantStoreToolkit-${stage}`);
    const parameters = Object.fromEntries(
      [...changeSet!.keys()]
        .filter((key) => /^Parameters\.member\.\d+\.ParameterKey$/.test(key))
        .map((key) => [
          changeSet!.get(key),
          changeSet!.get(key.replace('ParameterKey', 'ParameterValue')),
        ]),
    );
    const policy = (kind: string) =>
      `arn:aws:iam::${ACCOUNT}:policy/${STAGES[stage].stackName}-cfn-execution-${kind}`;
    expect(parameters).toMatchObject({
      Qualifier: STAGES[stage].qualifier,
      CloudFormationExecutionPolicies: ['data', 'compute', 'network'].map(policy).join(','),
      InputPermissionsBoundary: `${STAGES[stage].stackName}-deploy-boundary`,
      ApplyPermissionsBoundaryToAllRoles: 'true',
    });
    // CDKToolkit is at most looked at, never changed.
    const writes = requests.filter((r) => !/^(Describe|Get|List)/.test(r.get('Action') ?? ''));
    expect(writes.map((r) => r.get('StackName') ?? r.get('Action'))).not.toContain('CDKToolkit');
  }, 300_000);
});

/**
 * Runs the CDK CLI's `cdk bootstrap <args>` against a stand-in AWS endpoint that answers STS's
 * GetCallerIdentity, says no stack exists, and refuses the change set; the requests it got.
 */
async function bootstrapAgainstStandIn(args: string[]): Promise<URLSearchParams[]> {
  const requests: URLSearchParams[] = [];
  const server: Server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      const params = new URLSearchParams(body);
      requests.push(params);
      if (params.get('Action') === 'GetCallerIdentity') {
        response.writeHead(200, { 'content-type': 'text/xml' });
        response.end(
          `<GetCallerIdentityResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/"><GetCallerIdentityResult><Arn>arn:aws:iam::${ACCOUNT}:user/admin</Arn><UserId>AIDA</UserId><Account>${ACCOUNT}</Account></GetCallerIdentityResult><ResponseMetadata><RequestId>1</RequestId></ResponseMetadata></GetCallerIdentityResponse>`,
        );
        return;
      }
      response.writeHead(400, { 'content-type': 'text/xml' });
      response.end(
        `<ErrorResponse><Error><Type>Sender</Type><Code>ValidationError</Code><Message>Stack with id ${params.get('StackName')} does not exist</Message></Error><RequestId>1</RequestId></ErrorResponse>`,
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const home = mkdtempSync(join(temp, 'home-'));
  try {
    const { port } = server.address() as AddressInfo;
    const cli = spawn(process.execPath, [require.resolve('aws-cdk/bin/cdk'), ...args], {
      cwd: home,
      env: {
        PATH: process.env.PATH,
        HOME: home,
        AWS_ACCESS_KEY_ID: 'AKIAIOSFODNN7EXAMPLE',
        AWS_SECRET_ACCESS_KEY: 'stand-in',
        AWS_ENDPOINT_URL: `http://127.0.0.1:${port}`,
        AWS_EC2_METADATA_DISABLED: 'true',
        CDK_DISABLE_VERSION_CHECK: '1',
      },
      stdio: process.env.DEBUG_BOOTSTRAP ? 'inherit' : 'ignore',
    });
    await new Promise((resolve) => cli.on('close', resolve));
  } finally {
    server.close();
  }
  return requests;
}

it('the guide’s dev environment admits every branch the dev role trusts, slashes included', () => {
  const block = blocks.find((b) => b.includes('environments/dev/deployment-branch-policies'))!;
  const calls = runBlock(block, {});
  const policies = calls
    .filter((call) =>
      call.some((arg) => arg.endsWith('environments/dev/deployment-branch-policies')),
    )
    .map((call) => call[call.indexOf('-f') + 1]!.replace(/^name=/, ''));
  expect(policies.length).toBeGreaterThan(0);
  // GitHub's branch patterns: `*` stops at a slash, `**` does not.
  const admits = (pattern: string, branch: string) =>
    new RegExp(
      `^${pattern.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*\*|\*/g, (m) => (m === '**' ? '.*' : '[^/]*'))}$`,
    ).test(branch);
  expect(DEPLOY_REFS.dev).toEqual(['refs/heads/*']);
  for (const branch of ['main', 'feature/login', 'user/a/b']) {
    expect([branch, policies.some((pattern) => admits(pattern, branch))]).toEqual([branch, true]);
  }
});

describe('the prod stack and the releases Deploy takes', () => {
  const { outdir, template } = synthApp({ stage: 'prod', alarmEmail: 'ops@example.com' });

  it('names the stage’s deploy role and no lookup role', () => {
    const manifest = JSON.parse(readFileSync(join(outdir, 'manifest.json'), 'utf8'));
    const { properties } = manifest.artifacts[STAGES.prod.stackName];
    expect(properties.assumeRoleArn).toContain(`cdk-${STAGES.prod.qualifier}-deploy-role`);
    expect(properties.lookupRole).toBeUndefined();
  });

  it('check-release takes a release built for the stage’s bootstrap, and refuses 1.1.0', () => {
    const releases = join(temp, 'releases');
    mkdirSync(join(releases, '9.9.9'), { recursive: true });
    writeFileSync(
      join(releases, '9.9.9', `${STAGES.prod.stackName}.template.json`),
      JSON.stringify(template.toJSON()),
    );
    expect(checkReleaseBootstrap('v9.9.9', 'prod', releases).ok).toBe(true);
    const old = checkReleaseBootstrap('v1.1.0', 'prod');
    expect(old).toEqual({
      ok: false,
      line: expect.stringContaining("on the bootstrap qualifier hnb659fds, not prod's plantprod"),
    });
    expect(checkReleaseBootstrap('v9.9.9', 'prod').ok).toBe(false);
  });
});
