/**
 * How a subscriber's secret is kept at rest: encrypted with the stack's KMS key (encryption
 * context: the subscriber's id, so a ciphertext copied to another item does not open), which
 * only the deliver function may decrypt; locally the same way, with `npm start`'s KMS and the
 * same key policy. The stored value is `kms:` and the ciphertext. A rotation keeps the previous
 * secret beside the new one for `ROTATION_OVERLAP_SECONDS`, and attempts are signed with both.
 */
import { DecryptCommand, EncryptCommand, KMSClient } from '@aws-sdk/client-kms';
import { BOUNDED_CALLS, SDK_CLIENT_OPTIONS } from '../aws/sdk-client';
import type { MethodActions } from '../aws/table-definition';

/** Seals secrets before they are stored and opens them to sign. */
export interface SecretBox {
  seal(secret: string, subscriberId: string): Promise<string>;
  open(sealed: string, subscriberId: string): Promise<string>;
}

/** The KMS actions of each method (the key policy grants a function given a method these). */
export const SECRET_BOX_ACTIONS = {
  seal: ['kms:Encrypt'],
  open: ['kms:Decrypt'],
} as const satisfies MethodActions<SecretBox>;

/**
 * The encryption context every sealed secret is bound to: its subscriber's id (`sub_…`). The key
 * policy allows Encrypt and Decrypt under this context only, so the key opens nothing else.
 */
export const SUBSCRIBER_CONTEXT_CONDITION = {
  StringLike: { 'kms:EncryptionContext:subscriberId': 'sub_*' },
} as const;

const KMS_PREFIX = 'kms:';

/** The KMS client of the webhook functions: its calls bounded as the store's are. */
export function makeKmsClient(): KMSClient {
  return new KMSClient({ ...SDK_CLIENT_OPTIONS, ...BOUNDED_CALLS });
}

/** The KMS key (id, ARN or alias) that seals secrets in AWS. */
export function kmsSecretBox(keyId: string, client: KMSClient = makeKmsClient()): SecretBox {
  return {
    async seal(secret, subscriberId) {
      const { CiphertextBlob } = await client.send(
        new EncryptCommand({
          KeyId: keyId,
          Plaintext: Buffer.from(secret, 'utf8'),
          EncryptionContext: { subscriberId },
        }),
      );
      return `${KMS_PREFIX}${Buffer.from(CiphertextBlob!).toString('base64')}`;
    },
    async open(sealed, subscriberId) {
      if (!sealed.startsWith(KMS_PREFIX)) {
        throw new Error(`the secret of ${subscriberId} is not KMS-encrypted`);
      }
      const { Plaintext } = await client.send(
        new DecryptCommand({
          KeyId: keyId,
          CiphertextBlob: Buffer.from(sealed.slice(KMS_PREFIX.length), 'base64'),
          EncryptionContext: { subscriberId },
        }),
      );
      return Buffer.from(Plaintext!).toString('utf8');
    },
  };
}

/** How long a rotated-out secret still signs (beside the new one): 24 h. */
export const ROTATION_OVERLAP_SECONDS = 86_400;

/** What a stored subscriber holds of its secrets. */
export interface SealedSecrets {
  readonly subscriberId: string;
  readonly secret: string;
  /** The secret before the last rotation, while `rotationEndsAt` is ahead. */
  readonly previousSecret?: string;
  /** ISO time when the previous secret stops signing. */
  readonly rotationEndsAt?: string;
}

/** The sealed secrets that sign an attempt at `now`: the current one, then the previous one. */
export function signingSecrets(subscriber: SealedSecrets, now: number): string[] {
  const { secret, previousSecret, rotationEndsAt } = subscriber;
  const overlapping =
    previousSecret !== undefined &&
    rotationEndsAt !== undefined &&
    Date.parse(rotationEndsAt) > now;
  return overlapping ? [secret, previousSecret] : [secret];
}

/**
 * Opened secrets for one sandbox, by subscriber id and sealed value (a sealed value copied to
 * another subscriber's item opens, or fails, under that subscriber's own id). It holds the
 * promise, so the deliveries of a cold batch share one decrypt per secret; a failed decrypt is
 * forgotten and tried again by the next delivery.
 */
export class OpenedSecrets {
  private readonly opened = new Map<string, Promise<string>>();

  constructor(private readonly box: SecretBox) {}

  open(sealed: string, subscriberId: string): Promise<string> {
    const key = `${subscriberId}\n${sealed}`;
    let opening = this.opened.get(key);
    if (!opening) {
      opening = this.box.open(sealed, subscriberId);
      this.opened.set(key, opening);
      opening.catch(() => this.opened.delete(key));
    }
    return opening;
  }
}
