/**
 * How a subscriber's secret is kept at rest. Deployed, it is encrypted with the stack's KMS key
 * (encryption context: the subscriber's id, so a ciphertext copied to another item does not
 * open) and only the deliver function may decrypt; locally, where there is no KMS, it is kept
 * as it is in the local engine's data directory. The stored value says which (`kms:` or
 * `local:`), and a deployed function refuses a `local:` one.
 */
import { DecryptCommand, EncryptCommand, KMSClient } from '@aws-sdk/client-kms';

/** Seals secrets before they are stored and opens them to sign. */
export interface SecretBox {
  seal(secret: string, subscriberId: string): Promise<string>;
  open(sealed: string, subscriberId: string): Promise<string>;
}

const KMS_PREFIX = 'kms:';
const LOCAL_PREFIX = 'local:';

/** The KMS key (id, ARN or alias) that seals secrets in AWS. */
export function kmsSecretBox(keyId: string, client: KMSClient = new KMSClient({})): SecretBox {
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

/** The local runtime's box: no KMS on this machine, so the secret is stored as it is. */
export const LOCAL_SECRET_BOX: SecretBox = {
  seal: async (secret) => `${LOCAL_PREFIX}${secret}`,
  async open(sealed, subscriberId) {
    if (!sealed.startsWith(LOCAL_PREFIX)) {
      throw new Error(`the secret of ${subscriberId} was sealed by KMS, which is not here`);
    }
    return sealed.slice(LOCAL_PREFIX.length);
  },
};
