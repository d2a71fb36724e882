/**
 * The policy documents of the deployment, built once from the registry: each function's role
 * policy (the actions of the methods it is given, on its tables and queues) and the secrets key's
 * policy (the account administers and seals, the functions given the key's methods use it, all
 * under the subscriber encryption context). The stack fills in its resources' ARNs (CloudFormation
 * tokens); the local runtime its local ARNs, and judges every call by the same documents.
 */
import { SUBSCRIBER_CONTEXT_CONDITION } from '../../lambda/webhook/secrets';
import { FUNCTION_NAMES, FUNCTIONS, type FunctionName } from './functions';
import {
  actionsOf,
  KEY_METHODS,
  QUEUE_METHODS,
  tableGrants,
  type Uses,
  type KeyKey,
  type QueueKey,
  type TableKey,
} from './resources';

/**
 * What Lambda needs to attach a function to its subnets (`-c webhookStaticIps=true`): the
 * network interface actions, which take no resource. Granted to the function's role and allowed
 * by the CloudFormation execution policy that creates it.
 */
export const NETWORK_INTERFACE_ACTIONS = [
  'ec2:CreateNetworkInterface',
  'ec2:DescribeNetworkInterfaces',
  'ec2:DescribeSubnets',
  'ec2:DeleteNetworkInterface',
  'ec2:AssignPrivateIpAddresses',
  'ec2:UnassignPrivateIpAddresses',
] as const;

/** One policy statement, in IAM's JSON. */
export interface Statement {
  readonly Sid?: string;
  readonly Effect: 'Allow' | 'Deny';
  readonly Principal?: { readonly AWS: string };
  readonly Action: readonly string[];
  readonly Resource: readonly string[];
  readonly Condition?: Readonly<Record<string, Readonly<Record<string, string>>>>;
}

/** A policy document. */
export interface Policy {
  readonly Version: '2012-10-17';
  readonly Statement: readonly Statement[];
}

/** Where each resource is, in the world the documents are for. */
export interface ResourceArns {
  table(key: TableKey): string;
  queue(key: QueueKey): string;
  /** A function's role (a key policy names it as principal). */
  role(name: FunctionName): string;
  /** The account's root principal (`arn:…:iam::<account>:root`). */
  readonly accountRoot: string;
  /** The role deployments run as (the bootstrap's CloudFormation execution role). */
  readonly deployer: string;
}

/**
 * What the account may do with the secrets key: administer it, but never decrypt, nor grant (a
 * grant could give decrypt), nor change the key policy (which could give decrypt): only the
 * stack's deployments do that.
 */
export const KEY_ADMINISTRATION = [
  'kms:CancelKeyDeletion',
  'kms:CreateAlias',
  'kms:DeleteAlias',
  'kms:DescribeKey',
  'kms:DisableKey',
  'kms:DisableKeyRotation',
  'kms:EnableKey',
  'kms:EnableKeyRotation',
  'kms:GetKeyPolicy',
  'kms:GetKeyRotationStatus',
  'kms:ListAliases',
  'kms:ListGrants',
  'kms:ListKeyPolicies',
  'kms:ListResourceTags',
  'kms:RevokeGrant',
  'kms:RotateKeyOnDemand',
  'kms:ScheduleKeyDeletion',
  'kms:TagResource',
  'kms:UntagResource',
  'kms:UpdateAlias',
  'kms:UpdateKeyDescription',
];

/**
 * The statements of a function's role policy for its tables and queues (its key use is in the key
 * policy); `uses`: what it is given, the registry's unless a test replaces it.
 */
export function functionStatements(
  name: FunctionName,
  arns: ResourceArns,
  uses: Uses = FUNCTIONS[name],
): Statement[] {
  const { tables = {}, queues = {} } = uses;
  return [
    ...(Object.keys(tables) as TableKey[]).flatMap((table) => {
      const grants = tableGrants(table, tables[table] ?? []);
      return [
        { Effect: 'Allow' as const, Action: grants.table, Resource: [arns.table(table)] },
        // An index is its own resource to IAM: a method that reads it is granted it alone.
        ...Object.entries(grants.indexes).map(([index, actions]) => ({
          Effect: 'Allow' as const,
          Action: actions,
          Resource: [`${arns.table(table)}/index/${index}`],
        })),
      ];
    }),
    ...(Object.keys(queues) as QueueKey[]).map((queue) => ({
      Effect: 'Allow' as const,
      Action: actionsOf(QUEUE_METHODS[queue], queues[queue] ?? []),
      Resource: [arns.queue(queue)],
    })),
  ].filter((statement) => statement.Action.length > 0);
}

/** A function's role policy (`uses`: as for `functionStatements`). */
export function functionPolicy(name: FunctionName, arns: ResourceArns, uses?: Uses): Policy {
  return { Version: '2012-10-17', Statement: functionStatements(name, arns, uses) };
}

/**
 * A key's policy, the whole of who may do what with it (no root `kms:*`, so no IAM policy can add
 * decrypt): the account administers it and seals subscriber secrets (the CLI's `add` and
 * `rotate`, through IAM), each function given the key's methods calls their actions.
 */
export function keyPolicy(key: KeyKey, arns: ResourceArns): Policy {
  const users = FUNCTION_NAMES.filter((name) => FUNCTIONS[name].keys?.[key]?.length);
  return {
    Version: '2012-10-17',
    Statement: [
      {
        Sid: 'AccountAdministersWithoutDecrypt',
        Effect: 'Allow',
        Principal: { AWS: arns.accountRoot },
        Action: KEY_ADMINISTRATION,
        Resource: ['*'],
      },
      {
        Sid: 'OnlyDeploymentsChangeThePolicy',
        Effect: 'Allow',
        Principal: { AWS: arns.accountRoot },
        Action: ['kms:PutKeyPolicy'],
        Resource: ['*'],
        // A string condition, not the role as principal: a key policy keeps a principal's unique
        // id, so a bootstrap role deleted and made again would lock the key.
        Condition: { ArnEquals: { 'aws:PrincipalArn': arns.deployer } },
      },
      {
        Sid: 'AccountSealsSubscriberSecrets',
        Effect: 'Allow',
        Principal: { AWS: arns.accountRoot },
        Action: actionsOf(KEY_METHODS[key], ['seal']),
        Resource: ['*'],
        Condition: SUBSCRIBER_CONTEXT_CONDITION,
      },
      ...users.map((name) => ({
        Sid: `${FUNCTIONS[name].id}UsesSubscriberSecrets`,
        Effect: 'Allow' as const,
        Principal: { AWS: arns.role(name) },
        Action: actionsOf(KEY_METHODS[key], FUNCTIONS[name].keys?.[key] ?? []),
        Resource: ['*'],
        Condition: SUBSCRIBER_CONTEXT_CONDITION,
      })),
    ],
  };
}
