/**
 * What the CDK CLI does through a stage's bootstrap roles, beside CloudFormation's own work:
 * change sets of the stage's stack only, never an import (no role of one stage creates, changes
 * or deletes another stage's stack, nor uses that stack's execution role), the stage's asset
 * bucket and version parameter.
 */
import { bootstrapBucketArn, bootstrapRoleArn, bootstrapVersionParameterArn } from '../bootstrap';
import { arn, pseudo, type DeployPolicyScope, type Grant } from './grants';

/** What the CDK CLI does with a stage's bootstrap roles, beside CloudFormation's own work. */
export function deployGrants(s: DeployPolicyScope): Grant[] {
  const bootstrap = { qualifier: s.qualifier, ...pseudo(s) };
  const bucket = bootstrapBucketArn(bootstrap);
  return [
    {
      // The stage's stack only, through change sets (as `cdk deploy` and `cdk diff --change-set`
      // do): no role of one stage creates, changes or deletes another's.
      actions: [
        'cloudformation:CreateChangeSet',
        'cloudformation:DescribeChangeSet',
        'cloudformation:ExecuteChangeSet',
        'cloudformation:DeleteChangeSet',
        'cloudformation:DeleteStack',
        'cloudformation:RollbackStack',
        'cloudformation:ContinueUpdateRollback',
        'cloudformation:DescribeStacks',
        'cloudformation:DescribeStackEvents',
        'cloudformation:DescribeStackResources',
        'cloudformation:ListStackResources',
        'cloudformation:GetTemplate',
        'cloudformation:GetTemplateSummary',
      ],
      resources: [arn(s, 'cloudformation', `stack/${s.stackName}/*`)],
    },
    {
      // No change set imports a resource into the stack (CloudFormation fills the key from the
      // request's ResourcesToImport): an import would bring a resource the stage's policies do
      // not otherwise reach (one of another stage, found by id) under the stage's stack.
      effect: 'Deny',
      actions: ['cloudformation:CreateChangeSet'],
      resources: ['*'],
      conditions: { 'ForAnyValue:StringLike': { 'cloudformation:ImportResourceTypes': '*' } },
    },
    {
      actions: ['iam:PassRole'],
      resources: [bootstrapRoleArn(bootstrap, 'cfn-exec')],
      conditions: { StringEquals: { 'iam:PassedToService': 'cloudformation.amazonaws.com' } },
    },
    {
      // Publishing the assets, and Lambda reading a function's code with CloudFormation's role.
      actions: [
        's3:GetObject',
        's3:PutObject',
        's3:AbortMultipartUpload',
        's3:ListBucket',
        's3:GetBucketLocation',
        's3:GetEncryptionConfiguration',
      ],
      resources: [bucket, `${bucket}/*`],
    },
    {
      actions: ['kms:Decrypt', 'kms:Encrypt', 'kms:GenerateDataKey'],
      resources: [arn(s, 'kms', 'key/*')],
      conditions: { StringEquals: { 'kms:ViaService': `s3.${pseudo(s).region}.amazonaws.com` } },
    },
    {
      actions: ['ssm:GetParameter', 'ssm:GetParameters'],
      resources: [bootstrapVersionParameterArn(bootstrap)],
    },
    { actions: ['sts:GetCallerIdentity'], resources: ['*'] },
  ];
}
