/**
 * The local AWS account as `npm start` (and `npm run db`) runs it: the identities it issued, the
 * policies the stack deploys with local ARNs (lib/definitions/policies.ts), the local KMS's keys,
 * and the gate in front of the engine, the queues and the key. It also keeps which grants were
 * used, so that a grant no call needed can be reported.
 */
import { LOCAL_QUEUE_NAMES, LOCAL_SECRETS_KEY_ALIAS } from '../names';
import {
  FUNCTION_NAMES,
  FUNCTIONS,
  TABLES_BY_KEY,
  type FunctionName,
} from '../../definitions/functions';
import type { Uses } from '../../definitions/resources';
import { functionPolicy, keyPolicy, type ResourceArns } from '../../definitions/policies';
import { DYNAMODB_ACCESS, localTableArn } from '../dynamodb/access';
import { LocalKms } from '../kms/api';
import { LocalKeys } from '../kms/keys';
import { localQueueArn, SQS_ACCESS } from '../sqs/access';
import { checkPolicy, PolicyJudge, type CheckedPolicy } from './evaluator';
import { AccessGate } from './gate';
import { grantHint, type Denial } from './grant-hint';
import {
  Identities,
  LOCAL_ACCOUNT,
  localRoleArn,
  operatorProfileFile,
  type Identity,
} from './identities';

/** Where each resource of the registry is locally. */
export const LOCAL_ARNS: ResourceArns = {
  table: (key) => localTableArn(TABLES_BY_KEY[key].localName),
  queue: (key) => localQueueArn(LOCAL_QUEUE_NAMES[key]),
  role: (name) => localRoleArn(`${FUNCTIONS[name].id}Role`),
  accountRoot: `arn:aws:iam::${LOCAL_ACCOUNT}:root`,
  deployer: `arn:aws:iam::${LOCAL_ACCOUNT}:role/cdk-hnb659fds-cfn-exec-role-${LOCAL_ACCOUNT}-local`,
};

/** The account of one run. */
export interface LocalAccount {
  readonly identities: Identities;
  readonly gate: AccessGate;
  readonly kms: LocalKms;
  /** Issues the credentials of a new sandbox of the function `name`, as its environment holds them. */
  sandboxCredentials(name: string): Record<string, string>;
  /** The function grants (`<function> <action> on <arn>`) no allowed call has used so far. */
  unusedGrants(): string[];
}

/** What the account needs. */
export interface LocalAccountOptions {
  /** Where the operator's keys and the key material are kept. @default - in memory */
  readonly dataDir?: string;
  /** Receives one line per denied call. */
  readonly log: (line: string) => void;
  /** Judges the functions by these policies instead of the registry's (tests of the gate). */
  readonly policies?: ReadonlyMap<string, readonly CheckedPolicy[]>;
  /**
   * What some functions are given instead of what the registry gives them (a clone of the
   * registry, for tests): their policies are built from these, as the stack would build them.
   * @default - the registry's
   */
  readonly grants?: Partial<Record<FunctionName, Uses>>;
  /** Told of each denied call, once its lines are logged. @default - nobody */
  readonly onDenied?: (denial: Denial) => void;
}

/** Opens the account: identities, policies checked as IAM checks them, keys, and the gate. */
export async function openLocalAccount(options: LocalAccountOptions): Promise<LocalAccount> {
  const identities = await Identities.open(options.dataDir);
  const policies = new Map<string, readonly CheckedPolicy[]>(options.policies ?? []);
  if (!options.policies) {
    for (const name of FUNCTION_NAMES) {
      const policy = functionPolicy(name, LOCAL_ARNS, options.grants?.[name]);
      policies.set(name, [await checkPolicy(name, policy, 'identity')]);
    }
  }
  const secretsPolicy = await checkPolicy(
    'secrets key',
    keyPolicy('secrets', LOCAL_ARNS),
    'resource',
  );
  const keys = await LocalKeys.open([{ alias: LOCAL_SECRETS_KEY_ALIAS }], options.dataDir);
  const kms = new LocalKms(keys, () => secretsPolicy);
  const used = new Set<string>();
  const gate = new AccessGate({
    identities,
    policies,
    judge: new PolicyJudge(),
    services: [DYNAMODB_ACCESS, SQS_ACCESS, kms],
    administrator: [
      await checkPolicy(
        'operator',
        { Version: '2012-10-17', Statement: [{ Effect: 'Allow', Action: '*', Resource: '*' }] },
        'identity',
      ),
    ],
    log: options.log,
    onDenied: (functionName, action, resource) => {
      const denial = { functionName, action, resource };
      // Only a function's call: the operator is an administrator, refused by a key policy alone.
      if (policies.has(functionName)) options.log(`[iam] ${grantHint(denial)}`);
      options.onDenied?.(denial);
    },
    onAllowed: (who, action, resource) => used.add(`${who} ${action} on ${resource}`),
    ...(options.dataDir
      ? {
          unknownKeyHint: `(Locally, sign with the operator's keys: AWS_SHARED_CREDENTIALS_FILE=${operatorProfileFile(options.dataDir)})`,
        }
      : {}),
  });
  return {
    identities,
    gate,
    kms,
    sandboxCredentials(name) {
      const identity: Identity = identities.issue(name, LOCAL_ARNS.role(name as never));
      return {
        AWS_ACCESS_KEY_ID: identity.credentials.accessKeyId,
        AWS_SECRET_ACCESS_KEY: identity.credentials.secretAccessKey,
        AWS_SESSION_TOKEN: identity.credentials.sessionToken!,
      };
    },
    unusedGrants() {
      return [...policies].flatMap(([who, checked]) =>
        checked.flatMap((policy) =>
          (policy.policyDocument as ReturnType<typeof functionPolicy>).Statement.flatMap((s) =>
            s.Action.flatMap((action) =>
              s.Resource.map((arn) => `${who} ${action} on ${arn}`).filter((g) => !used.has(g)),
            ),
          ),
        ),
      );
    },
  };
}
