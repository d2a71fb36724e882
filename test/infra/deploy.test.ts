/**
 * What only a deployment would otherwise show (docs/decisions/0008-customer-managed-key-for-alarms.md and docs/decisions/0011-a-start-wrapper-for-the-functions.md): alarms CloudWatch can
 * deliver, the invoke permissions, the access-log variables and the stack's description. The app
 * is built as `cdk synth` builds it (lib/infra/app.ts, cdk.json's context); bundling is skipped
 * here (test/infra/stack.test.ts checks the bundles). The stages: deploy-stages.test.ts;
 * CloudFormation's own validation and cdk-nag: deploy-validation.test.ts.
 */
import { Match } from 'aws-cdk-lib/assertions';
import { API } from '../../lib/definitions/api';
import { FUNCTIONS } from '../../lib/definitions/functions';
import { STACK_DESCRIPTION } from '../../lib/infra/plant-store-stack';
import { synthApp } from '../support/cdk-app';

/** Access-log variables of HTTP APIs (API Gateway Developer Guide, "Customize HTTP API access logs"). */
const HTTP_API_LOG_VARIABLES = new Set([
  '$context.accountId',
  '$context.apiId',
  '$context.authorizer.error',
  '$context.domainName',
  '$context.error.message',
  '$context.httpMethod',
  '$context.identity.sourceIp',
  '$context.identity.userAgent',
  '$context.integrationErrorMessage',
  '$context.integrationLatency',
  '$context.integrationStatus',
  '$context.path',
  '$context.protocol',
  '$context.requestId',
  '$context.requestTime',
  '$context.requestTimeEpoch',
  '$context.responseLatency',
  '$context.responseLength',
  '$context.routeKey',
  '$context.stage',
  '$context.status',
]);

const ALARM_SOURCE = {
  StringEquals: { 'aws:SourceAccount': { Ref: 'AWS::AccountId' } },
  ArnLike: {
    'aws:SourceArn': {
      'Fn::Join': [
        '',
        [
          'arn:',
          { Ref: 'AWS::Partition' },
          ':cloudwatch:',
          { Ref: 'AWS::Region' },
          ':',
          { Ref: 'AWS::AccountId' },
          ':alarm:*',
        ],
      ],
    },
  },
};

describe('alarm notifications CloudWatch can deliver', () => {
  const { template } = synthApp({ alarmEmail: 'ops@example.com' });
  const [topicId] = Object.keys(template.findResources('AWS::SNS::Topic'));
  // The topic's own key (the webhook secrets have a key of their own).
  const keyId = template.findResources('AWS::SNS::Topic')[topicId].Properties.KmsMasterKeyId[
    'Fn::GetAtt'
  ][0] as string;

  it('encrypts the topic with a rotated customer-managed key, not alias/aws/sns', () => {
    expect(template.findResources('AWS::KMS::Key')[keyId].Properties.EnableKeyRotation).toBe(true);
    template.hasResourceProperties('AWS::SNS::Topic', {
      KmsMasterKeyId: { 'Fn::GetAtt': [keyId, 'Arn'] },
    });
    expect(JSON.stringify(template.toJSON())).not.toContain('alias/aws/sns');
  });

  it("lets cloudwatch.amazonaws.com use the key, only for this account's alarms", () => {
    template.hasResourceProperties('AWS::KMS::Key', {
      KeyPolicy: {
        Statement: Match.arrayWith([
          {
            Sid: 'AllowCloudWatchAlarmsToPublish',
            Effect: 'Allow',
            Principal: { Service: 'cloudwatch.amazonaws.com' },
            Action: ['kms:Decrypt', 'kms:GenerateDataKey*'],
            Resource: '*',
            Condition: ALARM_SOURCE,
          },
        ]),
      },
    });
  });

  it('lets cloudwatch.amazonaws.com publish to the topic (its policy replaces the default)', () => {
    template.hasResourceProperties('AWS::SNS::TopicPolicy', {
      Topics: [{ Ref: topicId }],
      PolicyDocument: {
        Statement: Match.arrayWith([
          {
            Sid: 'AllowCloudWatchAlarmsToPublish',
            Effect: 'Allow',
            Principal: { Service: 'cloudwatch.amazonaws.com' },
            Action: 'sns:Publish',
            Resource: { Ref: topicId },
            Condition: ALARM_SOURCE,
          },
        ]),
      },
    });
  });

  it('gives every alarm exactly the topic as its action, emailed to the address', () => {
    const alarms = Object.values(template.findResources('AWS::CloudWatch::Alarm'));
    expect(alarms.length).toBeGreaterThan(0);
    for (const alarm of alarms) {
      expect(alarm.Properties.AlarmActions).toEqual([{ Ref: topicId }]);
    }
    template.hasResourceProperties('AWS::SNS::Subscription', {
      Protocol: 'email',
      Endpoint: 'ops@example.com',
      TopicArn: { Ref: topicId },
    });
  });

  it('without an address: no topic, no key, alarms without actions', () => {
    const { template: quiet } = synthApp({ alarmEmail: '' });
    quiet.resourceCountIs('AWS::SNS::Topic', 0);
    // Only the webhook secrets' key is left.
    expect(Object.keys(quiet.findResources('AWS::KMS::Key'))).toHaveLength(
      Object.keys(template.findResources('AWS::KMS::Key')).length - 1,
    );
    for (const alarm of Object.values(quiet.findResources('AWS::CloudWatch::Alarm'))) {
      expect(alarm.Properties.AlarmActions).toBeUndefined();
    }
  });
});

describe('what API Gateway and Lambda check only when deployed', () => {
  const { template } = synthApp();
  const [apiId] = Object.keys(template.findResources('AWS::ApiGatewayV2::Api'));
  const [authorizerId] = Object.keys(template.findResources('AWS::ApiGatewayV2::Authorizer'));
  const functionId = (id: string) =>
    Object.keys(template.findResources('AWS::Lambda::Function')).find((key) =>
      new RegExp(`^${id}Function[0-9A-F]{8}$`).test(key),
    )!;
  const executeApi = (suffix: unknown[]) => ({
    'Fn::Join': [
      '',
      [
        'arn:',
        { Ref: 'AWS::Partition' },
        ':execute-api:',
        { Ref: 'AWS::Region' },
        ':',
        { Ref: 'AWS::AccountId' },
        ':',
        { Ref: apiId },
        ...suffix,
      ],
    ],
  });

  it('lets API Gateway invoke the authorizer only as this API’s authorizer', () => {
    template.hasResourceProperties('AWS::Lambda::Permission', {
      Action: 'lambda:InvokeFunction',
      Principal: 'apigateway.amazonaws.com',
      FunctionName: { 'Fn::GetAtt': [functionId(FUNCTIONS.authorizer.id), 'Arn'] },
      SourceArn: executeApi(['/authorizers/', { Ref: authorizerId }]),
    });
  });

  it.each(API.routes)('lets API Gateway invoke $function only for $method $path', (route) => {
    template.hasResourceProperties('AWS::Lambda::Permission', {
      Action: 'lambda:InvokeFunction',
      Principal: 'apigateway.amazonaws.com',
      FunctionName: { 'Fn::GetAtt': [functionId(FUNCTIONS[route.function].id), 'Arn'] },
      SourceArn: executeApi([`/*/*${route.path}`]),
    });
  });

  it("updates each function only after those its registry entry's deployAfter names", () => {
    const functions = template.findResources('AWS::Lambda::Function');
    const ordered = Object.entries(FUNCTIONS).filter(([, f]) => (f.deployAfter ?? []).length > 0);
    // delete-plant's tombstones must not meet the last release's readers.
    expect(ordered.map(([name]) => name)).toEqual(['delete-plant']);
    for (const [, definition] of ordered) {
      const dependsOn = functions[functionId(definition.id)]!.DependsOn as string[];
      const expected = definition.deployAfter!.map((name) =>
        functionId(FUNCTIONS[name as keyof typeof FUNCTIONS].id),
      );
      expect(dependsOn).toEqual(expect.arrayContaining(expected));
      // Its role's policy too, as every function (it must not start before it may read).
      expect(dependsOn.some((id) => id.includes('DefaultPolicy'))).toBe(true);
    }
  });

  it('grants no other invoke permission', () => {
    template.resourceCountIs('AWS::Lambda::Permission', API.routes.length + 1);
  });

  it('writes access logs with variables the HTTP API documents', () => {
    const [stage] = Object.values(template.findResources('AWS::ApiGatewayV2::Stage'));
    const values = Object.values(JSON.parse(stage!.Properties.AccessLogSettings.Format));
    expect(values.length).toBeGreaterThan(0);
    // `$context.authorizer.<key>` reads a key of the context the authorizer returns.
    const contextKeys = ['tokenId', 'name', 'scopes'].map((key) => `$context.authorizer.${key}`);
    for (const value of values) {
      expect([
        value,
        HTTP_API_LOG_VARIABLES.has(value as string) || contextKeys.includes(value as string),
      ]).toEqual([value, true]);
    }
    expect(values).toContain('$context.authorizer.tokenId');
  });

  it('describes the stack and its outputs with every operation', () => {
    const json = template.toJSON() as {
      Description: string;
      Outputs: Record<string, { Description: string }>;
    };
    expect(json.Description).toBe(STACK_DESCRIPTION);
    for (const route of API.routes) {
      expect(json.Description).toContain(`${route.method} ${route.path}`);
      expect(json.Outputs.ApiUrl!.Description).toContain(
        `${route.method} <ApiUrl>${route.path.slice(1)}`,
      );
    }
  });
});
