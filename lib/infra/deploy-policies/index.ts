/**
 * What a stage's deployment may do, as policies this repository defines (docs/security.md,
 * "Stages and accounts"):
 *
 * - the CloudFormation execution policies (`cdk bootstrap --cloudformation-execution-policies`,
 *   three for IAM's size limit: data, compute, network): for each resource type the stage's
 *   stack holds, the actions CloudFormation takes on it, only on resources named after the
 *   stage's stack or tagged with its stage; IAM only on the stack's own roles, which must carry
 *   the workload boundary;
 * - the deploy boundary (`cdk bootstrap --custom-permissions-boundary
 *   --apply-permissions-boundary-to-all-roles`): the most any bootstrap role of the stage may do,
 *   the execution policies' and the CLI's actions under the same conditions, and no import;
 * - the workload boundary: the most any role the stack creates may do.
 *
 * No statement grants a whole service (`*` or `service:*`): each action is named.
 */
import { Fn } from 'aws-cdk-lib';
import { Effect, PolicyDocument, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { COMPUTE_GRANTS } from './execution-compute';
import { NETWORK_GRANTS, NO_NETWORK } from './execution-network';
import { DATA_GRANTS, type ResourceGrants } from './execution-data';
import { deployGrants } from './deploy';
import type { DeployPolicyScope, Grant, PseudoParameters } from './grants';
import { workloadGrants } from './workload';

export { ATTACHED_MANAGED_POLICIES } from './execution-compute';
export type { DeployPolicyScope, Grant } from './grants';

/** Every resource type the stage's stack may hold, with what CloudFormation does to it. */
export const EXECUTION_GRANTS: readonly ResourceGrants[] = [
  ...DATA_GRANTS,
  ...COMPUTE_GRANTS,
  ...NETWORK_GRANTS,
];

/** The grants of `entries` that apply to the stage's stack. */
const grantsOf = (entries: readonly ResourceGrants[], scope: DeployPolicyScope) =>
  entries
    .filter((entry) => !entry.staticEgress || scope.staticEgress)
    .flatMap((entry) => entry.grants(scope));

/** The read-only verbs the deploy boundary writes as one prefix (IAM's size limit). */
const READ_VERBS = ['Describe', 'Get', 'List'] as const;

/** `pattern` (IAM's `*` wildcard) as a regular expression. */
const glob = (pattern: string) =>
  new RegExp(`^${pattern.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replaceAll('*', '.*')}$`);

/**
 * The boundary of the bootstrap roles, compact enough for IAM's 6,144 characters. Each statement
 * of the execution and CLI grants keeps its conditions (without them, any bootstrap role could
 * reach what the execution policies reach only through the stage's tag), and a denial stays as it
 * is. To fit: the statements under the same conditions are one statement (a service's resources
 * written as all of that service's: the condition decides), and so are the unconditioned ones on
 * resources that name the stage (its stack's, its bootstrap's) and those on every resource; two
 * or more actions with the same verb are written as its prefix (`dynamodb:Describe*`, or, kept to
 * the stage by their resources or conditions, `ec2:Create*`; of IAM's writes only
 * `iam:Update*`), a tagging pair as one (`sqs:*tagQueue`); a statement another covers is left
 * out. A boundary grants nothing by itself: each role still does only what its own
 * policy grants (CloudFormation's, the execution policies, each action on its own resources).
 */
function boundaryOf(grants: readonly Grant[], scope: DeployPolicyScope): Grant[] {
  const namesStage = (resource: string) =>
    resource.includes(`${scope.stackName}-`) ||
    resource.includes(`/${scope.stackName}`) ||
    resource.includes(scope.qualifier);
  const merged = new Map<string, { resources: Set<string>; actions: Set<string>; grant: Grant }>();
  for (const grant of grants) {
    const { actions, resources, conditions, effect } = grant;
    const where =
      conditions || resources.every(namesStage)
        ? ''
        : resources.join() === '*'
          ? '*'
          : `${actions[0]!.split(':')[0]} ${[...resources].sort()}`;
    const key = `${effect ?? 'Allow'} ${where} ${JSON.stringify(conditions ?? {})}`;
    const entry = merged.get(key) ?? { resources: new Set(), actions: new Set(), grant };
    merged.set(key, entry);
    for (const action of actions) entry.actions.add(action);
    for (const resource of resources) entry.resources.add(resource);
  }
  // Under a condition, one service's resources are written as all of that service's in the
  // account (the condition still decides which).
  const coarse = (resources: Set<string>) => {
    if (resources.has('*')) return ['*'];
    const services = new Map<string, string[]>();
    for (const resource of resources) {
      const prefix = resource.split(':').slice(0, 5).join(':');
      services.set(prefix, [...(services.get(prefix) ?? []), resource]);
    }
    return [...services]
      .flatMap(([prefix, all]) => (all.length > 1 ? [`${prefix}:*`] : all))
      .sort();
  };
  const statements: Grant[] = [...merged.values()].map(({ resources, actions, grant }) => {
    const kept = grant.conditions !== undefined || [...resources].every(namesStage);
    const prefixOf = (action: string) => {
      const [service, name] = action.split(':') as [string, string];
      const verb = /^[A-Z][a-z]+/.exec(name)?.[0] ?? name;
      const read = (READ_VERBS as readonly string[]).includes(verb);
      // IAM's only write verb written so: Update (on a role, only UpdateRole, its description
      // and its trust); never Delete or Put (a role's boundary).
      const write = kept && (service !== 'iam' || verb === 'Update');
      return read || write ? `${service}:${verb}*` : undefined;
    };
    const count = (prefix: string) => [...actions].filter((a) => prefixOf(a) === prefix).length;
    const written = [...actions].map((action) => {
      const prefix = prefixOf(action);
      if (grant.effect === 'Deny') return action;
      if (prefix && count(prefix) > 1) return prefix;
      // A tagging pair as one (IAM matches actions case-insensitively): `sqs:*tagQueue`.
      const [service, name] = action.split(':') as [string, string];
      const tagged = /^(?:Un)?[tT]ag(\w+)$/.exec(name)?.[1];
      return tagged &&
        actions.has(`${service}:Tag${tagged}`) &&
        actions.has(`${service}:Untag${tagged}`)
        ? `${service}:*tag${tagged}`
        : action;
    });
    return {
      ...(grant.effect && { effect: grant.effect }),
      actions: [...new Set(written)].sort(),
      resources: grant.conditions ? coarse(resources) : [...resources].sort(),
      ...(grant.conditions && { conditions: grant.conditions }),
    };
  });
  const covers = (wide: Grant, narrow: Grant) =>
    wide !== narrow &&
    wide.effect === undefined &&
    narrow.effect === undefined &&
    // Fewer conditions hold more often: each of the wide one's must be one of the narrow one's.
    Object.entries(wide.conditions ?? {}).every(([operator, keys]) =>
      Object.entries(keys).every(
        ([key, value]) =>
          JSON.stringify(narrow.conditions?.[operator]?.[key]) === JSON.stringify(value),
      ),
    ) &&
    narrow.actions.every((action) => wide.actions.some((p) => glob(p).test(action))) &&
    narrow.resources.every((resource) => wide.resources.some((p) => glob(p).test(resource)));
  return statements.filter((narrow) => !statements.some((wide) => covers(wide, narrow)));
}

/** The policies of a stage, as grants. */
export const STAGE_POLICIES = {
  executionData: (scope: DeployPolicyScope) => grantsOf(DATA_GRANTS, scope),
  executionCompute: (scope: DeployPolicyScope) => grantsOf(COMPUTE_GRANTS, scope),
  executionNetwork: (scope: DeployPolicyScope) =>
    scope.staticEgress ? grantsOf(NETWORK_GRANTS, scope) : [...NO_NETWORK],
  deployBoundary: (scope: DeployPolicyScope) =>
    boundaryOf([...grantsOf(EXECUTION_GRANTS, scope), ...deployGrants(scope)], scope),
  workloadBoundary: workloadGrants,
} as const satisfies Record<string, (scope: DeployPolicyScope) => Grant[]>;

/** A policy's name in `STAGE_POLICIES`. */
export type StagePolicy = keyof typeof STAGE_POLICIES;

/** A string holding `${AWS::…}` placeholders, as CloudFormation's `Fn::Sub` of it. */
const sub = (value: string) => (value.includes('${AWS::') ? Fn.sub(value) : value);
const subAll = (value: string | string[]) => (Array.isArray(value) ? value.map(sub) : sub(value));

/** A policy of a stage as an IAM policy document. */
export function policyDocument(policy: StagePolicy, scope: DeployPolicyScope): PolicyDocument {
  return new PolicyDocument({
    statements: STAGE_POLICIES[policy](scope).map(
      ({ effect, actions, resources, conditions }) =>
        new PolicyStatement({
          effect: effect === 'Deny' ? Effect.DENY : Effect.ALLOW,
          actions: [...actions],
          resources: resources.map(sub),
          conditions:
            conditions &&
            Object.fromEntries(
              Object.entries(conditions).map(([operator, keys]) => [
                operator,
                Object.fromEntries(
                  Object.entries(keys).map(([key, value]) => [key, subAll(value)]),
                ),
              ]),
            ),
        }),
    ),
  });
}

/** How cdk-nag writes CloudFormation's pseudo parameters in a finding. */
const NAG_PSEUDO: PseudoParameters = {
  partition: '<AWS::Partition>',
  region: '<AWS::Region>',
  account: '<AWS::AccountId>',
};

/**
 * The wildcards of a policy of a stage, as cdk-nag's AwsSolutions-IAM5 names them
 * (`Resource::arn:<AWS::Partition>:…`, `Action::dynamodb:Describe*`): each is acknowledged by
 * name, so a new wildcard fails synth until someone looks at it.
 */
export function wildcardFindings(policy: StagePolicy, scope: DeployPolicyScope): string[] {
  const grants = STAGE_POLICIES[policy]({ ...scope, aws: NAG_PSEUDO });
  const findings = [
    ...grants.flatMap((grant) => grant.actions).map((action) => `Action::${action}`),
    ...grants.flatMap((grant) => grant.resources).map((resource) => `Resource::${resource}`),
  ];
  return [...new Set(findings.filter((finding) => finding.includes('*')))].map(
    (finding) => `AwsSolutions-IAM5[${finding}]`,
  );
}
