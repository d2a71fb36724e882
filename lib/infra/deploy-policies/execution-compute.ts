/**
 * What CloudFormation does to the stage's compute and its edges (functions, their roles, the
 * HTTP API): each resource type with the actions its create, read, update and delete take, on the
 * stage's resources only (the static egress's network: execution-network.ts). IAM reaches only the stack's own roles,
 * and creates them only under the stage's workload boundary.
 */
import { bootstrapBucketArn } from '../bootstrap';
import type { ResourceGrants } from './execution-data';
import {
  arn,
  named,
  pseudo,
  stackRoles,
  tagged,
  taggedOnCreate,
  workloadBoundaryArn,
  type Grant,
} from './grants';

/** The AWS managed policies the stack's roles attach (CDK's defaults for Lambda). */
export const ATTACHED_MANAGED_POLICIES = [
  'service-role/AWSLambdaBasicExecutionRole',
  'service-role/AWSLambdaVPCAccessExecutionRole',
] as const;

/** The compute resource types of the stack and its API, and what CloudFormation does to them. */
export const COMPUTE_GRANTS: readonly ResourceGrants[] = [
  {
    types: ['AWS::Lambda::Function', 'AWS::Lambda::Permission', 'AWS::Lambda::EventSourceMapping'],
    grants: (s) => [
      {
        actions: [
          'lambda:CreateFunction',
          'lambda:DeleteFunction',
          'lambda:GetFunction',
          'lambda:GetFunctionConfiguration',
          'lambda:UpdateFunctionCode',
          'lambda:UpdateFunctionConfiguration',
          'lambda:PutFunctionConcurrency',
          'lambda:DeleteFunctionConcurrency',
          'lambda:GetFunctionCodeSigningConfig',
          'lambda:GetRuntimeManagementConfig',
          'lambda:PutRuntimeManagementConfig',
          'lambda:GetFunctionRecursionConfig',
          'lambda:PutFunctionRecursionConfig',
          'lambda:ListVersionsByFunction',
          'lambda:AddPermission',
          'lambda:RemovePermission',
          'lambda:GetPolicy',
          'lambda:ListTags',
          'lambda:TagResource',
          'lambda:UntagResource',
          // CloudFormation calls a custom resource's provider function (the VPC's default
          // security group is emptied by one).
          'lambda:InvokeFunction',
        ],
        resources: [arn(s, 'lambda', `function:${named(s)}`)],
      },
      {
        // CreateEventSourceMapping takes no resource (a mapping's ARN holds a random id): it is
        // kept to the stage's functions by the function it names.
        actions: ['lambda:CreateEventSourceMapping'],
        resources: ['*'],
        conditions: { ArnLike: { 'lambda:FunctionArn': arn(s, 'lambda', `function:${named(s)}`) } },
      },
      {
        actions: [
          'lambda:GetEventSourceMapping',
          'lambda:UpdateEventSourceMapping',
          'lambda:DeleteEventSourceMapping',
        ],
        resources: [arn(s, 'lambda', 'event-source-mapping:*')],
        conditions: { ArnLike: { 'lambda:FunctionArn': arn(s, 'lambda', `function:${named(s)}`) } },
      },
      {
        actions: ['lambda:ListTags', 'lambda:TagResource', 'lambda:UntagResource'],
        resources: [arn(s, 'lambda', 'event-source-mapping:*')],
        conditions: tagged(s),
      },
      {
        actions: ['lambda:TagResource'],
        resources: [arn(s, 'lambda', 'event-source-mapping:*')],
        conditions: taggedOnCreate(s),
      },
      { actions: ['lambda:ListEventSourceMappings'], resources: ['*'] },
      {
        // Lambda reads a function's code from the stage's asset bucket as CloudFormation's role.
        actions: ['s3:GetObject'],
        resources: [`${bootstrapBucketArn({ qualifier: s.qualifier, ...pseudo(s) })}/*`],
      },
    ],
  },
  {
    types: ['AWS::IAM::Role', 'AWS::IAM::Policy'],
    grants: (s): Grant[] => {
      const roles = [stackRoles(s)];
      return [
        {
          // A role is created, or its boundary set, only under the workload boundary.
          actions: ['iam:CreateRole', 'iam:PutRolePermissionsBoundary'],
          resources: roles,
          conditions: { StringEquals: { 'iam:PermissionsBoundary': workloadBoundaryArn(s) } },
        },
        {
          actions: [
            'iam:GetRole',
            'iam:DeleteRole',
            'iam:UpdateRole',
            'iam:UpdateRoleDescription',
            'iam:UpdateAssumeRolePolicy',
            'iam:TagRole',
            'iam:UntagRole',
            'iam:ListRoleTags',
            'iam:PutRolePolicy',
            'iam:GetRolePolicy',
            'iam:DeleteRolePolicy',
            'iam:ListRolePolicies',
            'iam:ListAttachedRolePolicies',
            'iam:ListInstanceProfilesForRole',
          ],
          resources: roles,
        },
        {
          actions: ['iam:AttachRolePolicy', 'iam:DetachRolePolicy'],
          resources: roles,
          conditions: {
            ArnEquals: {
              'iam:PolicyARN': ATTACHED_MANAGED_POLICIES.map(
                (name) => `arn:${pseudo(s).partition}:iam::aws:policy/${name}`,
              ),
            },
          },
        },
        {
          actions: ['iam:PassRole'],
          resources: roles,
          conditions: {
            StringEquals: {
              'iam:PassedToService': ['lambda.amazonaws.com', 'vpc-flow-logs.amazonaws.com'],
            },
          },
        },
      ];
    },
  },
  {
    types: [
      'AWS::ApiGatewayV2::Api',
      'AWS::ApiGatewayV2::Stage',
      'AWS::ApiGatewayV2::Route',
      'AWS::ApiGatewayV2::Integration',
      'AWS::ApiGatewayV2::Authorizer',
    ],
    grants: (s): Grant[] => {
      const api = (path: string) =>
        `arn:${pseudo(s).partition}:apigateway:${pseudo(s).region}::${path}`;
      const methods = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'].map((m) => `apigateway:${m}`);
      return [
        { actions: ['apigateway:POST'], resources: [api('/apis')], conditions: taggedOnCreate(s) },
        // The API and its stage carry the stage's tag; routes, integrations and authorizers
        // cannot be tagged, nor do they inherit their API's tag (docs/security.md says what
        // this leaves open in one account).
        { actions: methods, resources: [api('/apis/*'), api('/tags/*')], conditions: tagged(s) },
        {
          actions: methods,
          resources: ['routes', 'integrations', 'authorizers'].map((child) =>
            api(`/apis/*/${child}*`),
          ),
        },
      ];
    },
  },
  {
    // HTTP API access logs are delivered by CloudWatch Logs' vended-log delivery.
    types: ['AWS::ApiGatewayV2::Stage'],
    grants: () => [
      {
        actions: [
          'logs:CreateLogDelivery',
          'logs:GetLogDelivery',
          'logs:UpdateLogDelivery',
          'logs:DeleteLogDelivery',
          'logs:ListLogDeliveries',
          'logs:PutResourcePolicy',
          'logs:DescribeResourcePolicies',
        ],
        resources: ['*'],
      },
    ],
  },
];
