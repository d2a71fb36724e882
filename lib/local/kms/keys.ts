/**
 * The local KMS's keys: symmetric keys whose material never leaves this process but for the
 * private data directory (as an HSM keeps it), each with an alias and the key policy the stack
 * deploys. A ciphertext names its key and is AES-256-GCM over the plaintext with the encryption
 * context as additional authenticated data, so it opens only under the same context, as KMS's.
 */
import { createCipheriv, createDecipheriv, randomBytes, randomUUID } from 'node:crypto';
import { readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { LOCAL_ACCOUNT, LOCAL_REGION } from '../iam/identities';

/** One key. */
export interface LocalKey {
  readonly keyId: string;
  readonly arn: string;
  /** `alias/…` names that resolve to it. */
  readonly aliases: readonly string[];
  readonly material: Buffer;
}

/** A key to have, by the alias the code asks for. */
export interface KeySpec {
  readonly alias: string;
}

/** Why a ciphertext does not open: the KMS error names. */
export class KmsFault extends Error {
  constructor(
    readonly type: 'NotFoundException' | 'InvalidCiphertextException' | 'IncorrectKeyException',
    message: string,
  ) {
    super(message);
  }
}

const MAGIC = Buffer.from('PSK1');
const IV_BYTES = 12;
const TAG_BYTES = 16;
const KEY_ID_BYTES = 36;

/** The keys of one run. */
export class LocalKeys {
  private constructor(private readonly keys: readonly LocalKey[]) {}

  /**
   * The keys of `specs`, kept in `dataDir` (made on the first start, the same on the next, so that
   * what was sealed still opens); without `dataDir`, keys for this process alone.
   */
  static async open(specs: readonly KeySpec[], dataDir?: string): Promise<LocalKeys> {
    const file = dataDir && join(dataDir, 'kms-keys.json');
    const kept: { alias: string; keyId: string; material: string }[] = file
      ? JSON.parse((await readFile(file, 'utf8').catch(() => '[]')) || '[]')
      : [];
    let changed = false;
    const keys = specs.map(({ alias }) => {
      let entry = kept.find((k) => k.alias === alias);
      if (!entry) {
        entry = { alias, keyId: randomUUID(), material: randomBytes(32).toString('base64') };
        kept.push(entry);
        changed = true;
      }
      return {
        keyId: entry.keyId,
        arn: `arn:aws:kms:${LOCAL_REGION}:${LOCAL_ACCOUNT}:key/${entry.keyId}`,
        aliases: [alias],
        material: Buffer.from(entry.material, 'base64'),
      };
    });
    if (file && changed) {
      const temporary = `${file}.${process.pid}.tmp`;
      await writeFile(temporary, `${JSON.stringify(kept)}\n`, { mode: 0o600 });
      await rename(temporary, file);
    }
    return new LocalKeys(keys);
  }

  /** The key a `KeyId` names (id, ARN, alias name or alias ARN), if any. */
  find(keyId: string): LocalKey | undefined {
    const alias = keyId.replace(/^arn:aws:kms:[^:]*:\d*:/, '');
    return this.keys.find(
      (key) => key.keyId === keyId || key.arn === keyId || key.aliases.includes(alias),
    );
  }

  /** The key a ciphertext was sealed with, if it is one of ours. */
  keyOf(ciphertext: Buffer): LocalKey | undefined {
    if (!ciphertext.subarray(0, MAGIC.length).equals(MAGIC)) return undefined;
    return this.find(ciphertext.subarray(MAGIC.length, MAGIC.length + KEY_ID_BYTES).toString());
  }

  /** Seals `plaintext` under `key`, bound to `context`. */
  encrypt(key: LocalKey, plaintext: Buffer, context: Readonly<Record<string, string>>): Buffer {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', key.material, iv);
    cipher.setAAD(canonical(context));
    const sealed = Buffer.concat([cipher.update(plaintext), cipher.final()]);
    return Buffer.concat([MAGIC, Buffer.from(key.keyId), iv, cipher.getAuthTag(), sealed]);
  }

  /** Opens `ciphertext` under `context`; a wrong context, key or byte fails as KMS fails. */
  decrypt(
    ciphertext: Buffer,
    context: Readonly<Record<string, string>>,
    keyId?: string,
  ): { key: LocalKey; plaintext: Buffer } {
    const key = this.keyOf(ciphertext);
    if (!key) throw new KmsFault('InvalidCiphertextException', '');
    if (keyId !== undefined && this.find(keyId) !== key) {
      throw new KmsFault(
        'IncorrectKeyException',
        'The key ID in the request does not identify a CMK that can perform this operation.',
      );
    }
    const at = MAGIC.length + KEY_ID_BYTES;
    const decipher = createDecipheriv(
      'aes-256-gcm',
      key.material,
      ciphertext.subarray(at, at + IV_BYTES),
    );
    decipher.setAAD(canonical(context));
    decipher.setAuthTag(ciphertext.subarray(at + IV_BYTES, at + IV_BYTES + TAG_BYTES));
    try {
      const body = ciphertext.subarray(at + IV_BYTES + TAG_BYTES);
      return { key, plaintext: Buffer.concat([decipher.update(body), decipher.final()]) };
    } catch {
      throw new KmsFault('InvalidCiphertextException', '');
    }
  }
}

/** The context as bound: its pairs sorted by key (their order in a request does not matter). */
function canonical(context: Readonly<Record<string, string>>): Buffer {
  return Buffer.from(JSON.stringify(Object.entries(context).sort(([a], [b]) => (a < b ? -1 : 1))));
}
