/**
 * The local account's identities, issued by `npm start` (and `npm run db`) and by nobody else:
 * each function sandbox gets credentials of its own for its function's role, as Lambda gives each
 * environment a session of the role; the CLIs sign as one operator, whose keys are kept in the
 * private data directory. The local engine, queues and key accept a request only when it is
 * signed by one of these (lib/local/iam/sigv4.ts).
 */
import { randomBytes } from 'node:crypto';
import { readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { SigningSecret } from './sigv4';

/** The local account's id, in every local ARN. */
export const LOCAL_ACCOUNT = '000000000000';
/** The region of every local ARN and SDK client. */
export const LOCAL_REGION = 'local';

/** An identity's credentials, as the SDK takes them. */
export interface Credentials extends SigningSecret {
  readonly accessKeyId: string;
}

/** Who signed: a function's role session, or the operator. */
export interface Identity {
  readonly credentials: Credentials;
  /** The ARN a request signed with these credentials acts as. */
  readonly principal: string;
  /** The function's registry name, or `operator`. */
  readonly name: string;
  /** The role whose policy judges the function's requests; none for the operator. */
  readonly role?: string;
}

/** The operator's name in logs and its user's name in the local account. */
export const OPERATOR = 'operator';

/** The role ARN of a function's role, named after its construct id as the stack names it. */
export function localRoleArn(roleName: string): string {
  return `arn:aws:iam::${LOCAL_ACCOUNT}:role/${roleName}`;
}

/** The identities of one run. */
export class Identities {
  private readonly byKey = new Map<string, Identity>();

  private constructor(readonly operator: Identity) {
    this.byKey.set(operator.credentials.accessKeyId, operator);
  }

  /**
   * The identities of a run whose operator keys are kept in `dataDir` (made on the first start,
   * read on the next: a CLI in another terminal signs with them); without `dataDir`, an
   * operator for this process alone.
   */
  static async open(dataDir?: string): Promise<Identities> {
    const operator = (credentials: Credentials): Identity => ({
      credentials,
      principal: `arn:aws:iam::${LOCAL_ACCOUNT}:user/${OPERATOR}`,
      name: OPERATOR,
    });
    if (!dataDir) return new Identities(operator(newKeys('AKIA')));
    const kept = await readOperatorCredentials(dataDir);
    const keys = kept ?? newKeys('AKIA');
    if (!kept) await writePrivately(operatorFile(dataDir), `${JSON.stringify(keys)}\n`);
    // The same keys as a profile the AWS CLI, the SDKs and NoSQL Workbench read (written on
    // every start, so that a data directory made before it has one too).
    await writePrivately(
      operatorProfileFile(dataDir),
      [
        '[default]',
        `aws_access_key_id = ${keys.accessKeyId}`,
        `aws_secret_access_key = ${keys.secretAccessKey}`,
        '',
      ].join('\n'),
    );
    return new Identities(operator(keys));
  }

  /** Issues a new session of `role` for one sandbox of the function `name`. */
  issue(name: string, role: string): Identity {
    const identity: Identity = {
      credentials: { ...newKeys('ASIA'), sessionToken: randomBytes(48).toString('base64') },
      principal: `arn:aws:sts::${LOCAL_ACCOUNT}:assumed-role/${role.split('/').pop()}/${name}`,
      name,
      role,
    };
    this.byKey.set(identity.credentials.accessKeyId, identity);
    return identity;
  }

  /** Forgets a session (its sandbox is gone): its keys are refused from now on. */
  revoke(accessKeyId: string): void {
    if (accessKeyId !== this.operator.credentials.accessKeyId) this.byKey.delete(accessKeyId);
  }

  /** The identity an access key was issued to, if it was. */
  lookup(accessKeyId: string): Identity | undefined {
    return this.byKey.get(accessKeyId);
  }
}

/** Where the operator's keys are kept. */
export function operatorFile(dataDir: string): string {
  return join(dataDir, 'operator-credentials.json');
}

/**
 * The operator's keys as an AWS shared-credentials file (profile `default`):
 * `AWS_SHARED_CREDENTIALS_FILE=<it> aws dynamodb scan --endpoint-url …`.
 */
export function operatorProfileFile(dataDir: string): string {
  return join(dataDir, 'aws-credentials');
}

/** Writes `text` to `file` (0600) whole: a reader never sees half of it. */
async function writePrivately(file: string, text: string): Promise<void> {
  const temporary = `${file}.${process.pid}.tmp`;
  await writeFile(temporary, text, { mode: 0o600 });
  await rename(temporary, file);
}

/** The operator's keys kept in `dataDir`, or `undefined` before the first start. */
export async function readOperatorCredentials(dataDir: string): Promise<Credentials | undefined> {
  const text = await readFile(operatorFile(dataDir), 'utf8').catch(() => undefined);
  if (text === undefined) return undefined;
  const value = JSON.parse(text) as Partial<Credentials>;
  if (typeof value.accessKeyId !== 'string' || typeof value.secretAccessKey !== 'string') {
    throw new Error(`${operatorFile(dataDir)} holds no operator keys: delete it and start again`);
  }
  return { accessKeyId: value.accessKeyId, secretAccessKey: value.secretAccessKey };
}

/** An access key id (AWS's shape: a four-letter kind and 16 base32 characters) and its secret. */
function newKeys(kind: 'AKIA' | 'ASIA'): Credentials {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
  const id = [...randomBytes(16)].map((byte) => alphabet[byte % 32]).join('');
  return { accessKeyId: `${kind}${id}`, secretAccessKey: randomBytes(30).toString('base64') };
}
