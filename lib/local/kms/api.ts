/**
 * The part of KMS's JSON protocol (`x-amz-target: TrentService.<Action>`) the code calls —
 * Encrypt, Decrypt and DescribeKey — served on the engine's port (`AWS_ENDPOINT_URL_KMS`) from
 * the local keys. The access gate judges each call first, by the caller's identity and the key's
 * policy (`describe` says what each call asks, with its encryption context as condition keys).
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { CheckedPolicy } from '../iam/evaluator';
import type { Described, GatedService } from '../iam/gate';
import { KmsFault, type LocalKey, type LocalKeys } from './keys';

/** The `x-amz-target` prefix of KMS's protocol. */
export const KMS_TARGET_PREFIX = 'TrentService.';

/** What a request body may hold. */
interface KmsInput {
  readonly KeyId?: unknown;
  readonly Plaintext?: unknown;
  readonly CiphertextBlob?: unknown;
  readonly EncryptionContext?: unknown;
}

/** The local KMS: its keys, each with its policy. */
export class LocalKms implements GatedService {
  readonly service = 'kms' as const;
  readonly targetPrefix = KMS_TARGET_PREFIX;

  constructor(
    private readonly keys: LocalKeys,
    private readonly policyOf: (key: LocalKey) => CheckedPolicy | undefined,
  ) {}

  /** The key and the condition keys a call asks for; `undefined` when its key is not found. */
  describe(operation: string, raw: unknown): Described | undefined {
    const input = (raw ?? {}) as KmsInput;
    const key = this.keyFor(input);
    if (!key) return undefined;
    const context = contextOf(input);
    return {
      action: `kms:${operation}`,
      resources: [{ arn: key.arn, policy: this.policyOf(key) }],
      context: context && {
        ...Object.fromEntries(
          Object.entries(context).map(([name, value]) => [`kms:EncryptionContext:${name}`, value]),
        ),
        'kms:EncryptionContextKeys': Object.keys(context),
      },
    };
  }

  /** The engine's hook: answers KMS requests (true), leaves the others (false). */
  readonly intercept = (req: IncomingMessage, res: ServerResponse): boolean => {
    const target = String(req.headers['x-amz-target'] ?? '');
    if (!target.startsWith(KMS_TARGET_PREFIX)) return false;
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      let answer: { status: number; body: unknown };
      try {
        const input = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as KmsInput;
        answer = { status: 200, body: this.answer(target.slice(KMS_TARGET_PREFIX.length), input) };
      } catch (error) {
        answer =
          error instanceof KmsFault
            ? { status: 400, body: { __type: error.type, message: error.message } }
            : {
                status: 400,
                body: { __type: 'ValidationException', message: (error as Error).message },
              };
      }
      const body = JSON.stringify(answer.body);
      res.writeHead(answer.status, {
        'content-type': 'application/x-amz-json-1.1',
        'content-length': Buffer.byteLength(body),
        'x-amzn-requestid': randomUUID(),
      });
      res.end(body);
    });
    return true;
  };

  private answer(operation: string, input: KmsInput): unknown {
    const context = contextOf(input) ?? {};
    switch (operation) {
      case 'Encrypt': {
        const key = this.keyFor(input);
        if (!key) throw notFound(input.KeyId);
        if (typeof input.Plaintext !== 'string') throw new Error('Plaintext is required');
        const plaintext = Buffer.from(input.Plaintext, 'base64');
        if (plaintext.length === 0 || plaintext.length > 4096) {
          throw new Error('Plaintext must be from 1 to 4096 bytes');
        }
        return {
          CiphertextBlob: this.keys.encrypt(key, plaintext, context).toString('base64'),
          KeyId: key.arn,
          EncryptionAlgorithm: 'SYMMETRIC_DEFAULT',
        };
      }
      case 'Decrypt': {
        if (typeof input.CiphertextBlob !== 'string') throw new Error('CiphertextBlob is required');
        const opened = this.keys.decrypt(
          Buffer.from(input.CiphertextBlob, 'base64'),
          context,
          typeof input.KeyId === 'string' ? input.KeyId : undefined,
        );
        return {
          Plaintext: opened.plaintext.toString('base64'),
          KeyId: opened.key.arn,
          EncryptionAlgorithm: 'SYMMETRIC_DEFAULT',
        };
      }
      case 'DescribeKey': {
        const key = this.keyFor(input);
        if (!key) throw notFound(input.KeyId);
        return {
          KeyMetadata: {
            KeyId: key.keyId,
            Arn: key.arn,
            Enabled: true,
            KeyState: 'Enabled',
            KeyUsage: 'ENCRYPT_DECRYPT',
            KeySpec: 'SYMMETRIC_DEFAULT',
          },
        };
      }
      default:
        throw new KmsFault('NotFoundException', `the local KMS does not support ${operation}`);
    }
  }

  /** The key a request names, or (Decrypt without KeyId) the one its ciphertext names. */
  private keyFor(input: KmsInput): LocalKey | undefined {
    if (typeof input.KeyId === 'string') return this.keys.find(input.KeyId);
    if (typeof input.CiphertextBlob === 'string') {
      return this.keys.keyOf(Buffer.from(input.CiphertextBlob, 'base64'));
    }
    return undefined;
  }
}

/** A request's encryption context, when it has a well-formed one. */
function contextOf(input: KmsInput): Record<string, string> | undefined {
  const context = input.EncryptionContext;
  if (context === undefined || context === null || typeof context !== 'object') return undefined;
  return Object.fromEntries(Object.entries(context).map(([k, v]) => [k, String(v)]));
}

function notFound(keyId: unknown): KmsFault {
  return new KmsFault('NotFoundException', `Key '${String(keyId)}' does not exist`);
}
