/**
 * The deploy workflow's check before a deployment (`npm run release -- check-diff`): what
 * `cdk diff` prints against a deployed stack, read for tables, keys and queues that would be
 * removed or replaced; refused unless the documented override is given; its job summary
 * (`summarize-diff`), the resources' actions without an ARN, account id or address; usage
 * mistakes are one line and exit code 2.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { statefulChanges } from '../../../lib/release/cdk-diff';
import { runReleaseCli } from '../../../lib/release/release-cli';

/** As `cdk diff --change-set` prints a stack's resources (colours stripped). */
const DIFF = `Stack PlantStore-prod
Resources
[~] AWS::Lambda::Function CreatePlant/Function CreatePlantFunction6E3A3B55
 └─ [~] Environment
     └─ [+] NODE_OPTIONS: --enable-source-maps
[-] AWS::SQS::Queue Webhooks/DeadLetterQueue WebhooksDeadLetterQueue1C65998B destroy
[~] AWS::DynamoDB::Table Tables/Plants PlantsTable0ED39346 replace
 └─ [~] AttributeDefinitions (requires replacement)
[~] AWS::KMS::Key Webhooks/SecretsKey WebhooksSecretsKeyD20F1394 may be replaced
[~] AWS::SQS::Queue Webhooks/DeliveryQueue WebhooksDeliveryQueue42B30D41
 └─ [~] VisibilityTimeout
[+] AWS::SQS::Queue Webhooks/Other WebhooksOther0A1B2C3D
[-] AWS::DynamoDB::Table Tables/Old OldTable1234ABCD orphan
[-] AWS::Logs::LogGroup Old/Logs OldLogs5678EF90 destroy
[~] AWS::Lambda::Function Deliver/Function DeliverFunctionAAAA1111 replace
`;

it('finds each table, key and queue removed or replaced, and nothing else', () => {
  expect(statefulChanges(DIFF).map((f) => [f.type, f.logicalId])).toEqual([
    ['AWS::SQS::Queue', 'WebhooksDeadLetterQueue1C65998B'],
    ['AWS::DynamoDB::Table', 'PlantsTable0ED39346'],
    ['AWS::KMS::Key', 'WebhooksSecretsKeyD20F1394'],
    ['AWS::DynamoDB::Table', 'OldTable1234ABCD'],
  ]);
});

it('reads cdk diff in colour too', () => {
  const coloured =
    '\u001b[33m[~]\u001b[39m \u001b[36mAWS::DynamoDB::Table\u001b[39m Tables/Plants \u001b[90mPlantsTable0ED39346\u001b[39m \u001b[3m\u001b[1m\u001b[31mreplace\u001b[39m\u001b[22m\u001b[23m';
  expect(statefulChanges(coloured).map((f) => f.message)).toEqual([
    'AWS::DynamoDB::Table PlantsTable0ED39346 would be replaced: the new one starts empty',
  ]);
});

describe('npm run release -- check-diff', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'plant-store-release-'));
    writeFileSync(join(dir, 'bad.txt'), DIFF);
    writeFileSync(join(dir, 'good.txt'), DIFF.split('\n').slice(0, 5).join('\n'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const run = async (...argv: string[]) => {
    const out: string[] = [];
    const err: string[] = [];
    const code = await runReleaseCli(argv, {
      out: (l) => out.push(l),
      err: (l) => err.push(l),
      env: {},
    });
    return { code, out, err };
  };

  it('passes a diff that keeps every table, key and queue', async () => {
    expect(await run('check-diff', join(dir, 'good.txt'))).toEqual({
      code: 0,
      out: ['No table, key or queue would be removed or replaced.'],
      err: [],
    });
  });

  it('refuses one that loses any, naming each', async () => {
    const { code, out, err } = await run('check-diff', join(dir, 'bad.txt'));
    expect(code).toBe(1);
    expect(out).toHaveLength(4);
    expect(out[1]).toBe(
      '- AWS::DynamoDB::Table PlantsTable0ED39346 would be replaced: the new one starts empty',
    );
    expect(err).toEqual([
      'release: refused, 4 stateful resource(s) would lose their data; see docs/guides/deploying.md ("Releasing") before deploying with allow-replacement',
    ]);
  });

  it('lets it through with --allow-replacement, still naming each', async () => {
    const { code, out } = await run('check-diff', join(dir, 'bad.txt'), '--allow-replacement');
    expect(code).toBe(0);
    expect(out.at(-1)).toBe('Deploying anyway: allow-replacement was given (4 above).');
  });

  it('summarize-diff: each resource’s action, type and logical id, and nothing else of the diff', async () => {
    // What cdk diff prints besides the resources: ARNs with the account id, the alarm address.
    const secrets = [
      'arn:aws:iam::123456789012:role/cdk-plantprod-cfn-exec-role-123456789012-eu-west-1',
      'ops@example.com',
      'https://sqs.eu-west-1.amazonaws.com/123456789012/PlantStore-prod-Queue',
    ];
    writeFileSync(
      join(dir, 'full.txt'),
      `${DIFF}IAM Statement Changes\n│ + │ ${secrets[0]} │ Allow │ kms:PutKeyPolicy │\nParameters\n[+] Parameter AlarmEmail: ${secrets[1]}\nOutputs\n[~] Output DeadLetterQueueUrl: ${secrets[2]}\n[~] AWS::SNS::Subscription Alarms/Email ${secrets[1]}\n`,
    );
    const { code, out } = await run(
      'summarize-diff',
      join(dir, 'full.txt'),
      '--title',
      'Changes to the prod stack',
    );
    expect(code).toBe(0);
    const summary = out.join('\n');
    expect(summary).toBe(
      [
        '## Changes to the prod stack',
        '',
        '| action | type | logical id |',
        '| --- | --- | --- |',
        '| modify | AWS::Lambda::Function | CreatePlantFunction6E3A3B55 |',
        '| remove (destroy) | AWS::SQS::Queue | WebhooksDeadLetterQueue1C65998B |',
        '| modify (replace) | AWS::DynamoDB::Table | PlantsTable0ED39346 |',
        '| modify (may be replaced) | AWS::KMS::Key | WebhooksSecretsKeyD20F1394 |',
        '| modify | AWS::SQS::Queue | WebhooksDeliveryQueue42B30D41 |',
        '| add | AWS::SQS::Queue | WebhooksOther0A1B2C3D |',
        '| remove (orphan) | AWS::DynamoDB::Table | OldTable1234ABCD |',
        '| remove (destroy) | AWS::Logs::LogGroup | OldLogs5678EF90 |',
        '| modify (replace) | AWS::Lambda::Function | DeliverFunctionAAAA1111 |',
        '',
      ].join('\n'),
    );
    for (const secret of [...secrets, '123456789012', 'arn:'])
      expect(summary).not.toContain(secret);
    expect((await run('summarize-diff', join(dir, 'good.txt'))).out.join('\n')).toContain(
      '| modify | AWS::Lambda::Function | CreatePlantFunction6E3A3B55 |',
    );
  });

  it.each([
    [['summarize-diff'], 'release: summarize-diff takes one file: the output of cdk diff'],
    [['check-diff'], 'release: check-diff takes one file: the output of cdk diff'],
    [['check-diff', '/nonexistent'], 'release: cannot read /nonexistent'],
    [['keep', 'one'], 'release: not a version (major.minor.patch): "one"'],
    [['check-start'], 'release: check-start takes one file: cdk deploy --outputs-file'],
    [['check-start', '/nonexistent'], 'release: cannot read /nonexistent'],
    [['publish'], 'release: unknown command publish'],
    [['check-release', '1.2.0', '--stage', 'nope'], 'release: unknown stage "nope": dev or prod'],
    [
      ['check-release', '../../etc', '--stage', 'prod'],
      'release: not a version (major.minor.patch): "../../etc"',
    ],
    [
      ['check-release', 'v1.2.0/../../../etc', '--stage', 'prod'],
      'release: not a version (major.minor.patch): "1.2.0/../../../etc"',
    ],
  ])('%j is a usage mistake: one line, exit code 2', async (argv, message) => {
    const { code, err } = await run(...argv);
    expect(code).toBe(2);
    expect(err).toEqual([`${message} (see npm run release -- --help)`]);
  });

  it('check-release refuses by the exit rule: release: on stderr, exit code 1', async () => {
    const { code, out, err } = await run('check-release', 'v1.1.0', '--stage', 'prod');
    expect({ code, out }).toEqual({ code: 1, out: [] });
    expect(err).toEqual([
      expect.stringMatching(
        /^release: 1\.1\.0 deploys PlantStore-prod on the bootstrap qualifier /,
      ),
    ]);
  });

  it('keep refuses a release that is kept already', async () => {
    expect((await run('keep', '1.0.0')).err).toEqual([
      'release: releases/1.0.0 exists already (see npm run release -- --help)',
    ]);
  });
});
