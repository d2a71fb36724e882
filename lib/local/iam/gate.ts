/**
 * The local account's front door, before the engine, the queues and the key answer anything: a
 * request must be signed (SigV4) by an identity this run issued, and IAM must allow its action on
 * its resource for that identity: a function by its role's policy (the one the stack deploys,
 * lib/definitions/policies.ts) and the resource's own policy (the key policy), the operator by an
 * administrator's policy (and the key policy, as in AWS). A refusal is the service's own error,
 * and a denial is one line of `npm start`'s log naming the function, the action and the resource.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { PassThrough } from 'node:stream';
import { deniedMessage, refuse, signatureMessage, type LocalService } from './answers';
import type { AccessRequest, CheckedPolicy, PolicyJudge } from './evaluator';
import type { Identities, Identity } from './identities';
import { checkSignature } from './sigv4';

/** What one request asks of IAM: its action on each resource it touches, and its condition keys. */
export interface Described {
  readonly action: string;
  readonly resources: readonly {
    readonly arn: string;
    /** The resource's own policy (a key policy). @default - none */
    readonly policy?: CheckedPolicy;
  }[];
  /** Condition keys the request sets (`kms:EncryptionContext:…`). @default - none */
  readonly context?: Readonly<Record<string, string | readonly string[]>>;
}

/** A service behind the gate: which requests are its, and what each asks. */
export interface GatedService {
  readonly service: LocalService;
  /** The `x-amz-target` prefix of its operations (`DynamoDB_20120810.`). */
  readonly targetPrefix: string;
  /**
   * What `operation` with `input` asks; `undefined` when the input cannot say (not JSON, no
   * table): the service itself then answers its validation error, after the signature was checked.
   */
  describe(operation: string, input: unknown): Described | undefined;
}

/** The largest body read: DynamoDB's 16 MB request limit and some room. */
const MAX_BODY_BYTES = 17 * 1024 * 1024;

/** What the gate needs. */
export interface GateOptions {
  readonly identities: Identities;
  /** A function's identity policies, by its registry name (the operator is an administrator). */
  readonly policies: ReadonlyMap<string, readonly CheckedPolicy[]>;
  readonly judge: PolicyJudge;
  /** The operator's policy: an administrator's (the key policy still decides on keys). */
  readonly administrator: readonly CheckedPolicy[];
  readonly services: readonly GatedService[];
  /** Receives one line per denial. */
  readonly log: (line: string) => void;
  /** Told of each denied action on a resource, by identity name, after its line is logged. */
  readonly onDenied?: (who: string, action: string, resource: string) => void;
  /** Told of each allowed action on a resource, by identity name (to report grants never used). */
  readonly onAllowed?: (who: string, action: string, resource: string) => void;
  /** Added to AWS's message for keys this run never issued. @default - AWS's message alone */
  readonly unknownKeyHint?: string;
}

/** Checks each request; what passes goes on with its body intact. */
export class AccessGate {
  constructor(private readonly options: GateOptions) {}

  /**
   * Reads the request, checks it and either answers the refusal or calls `next` with a request
   * that reads the same body (the engine, the queues and the stream's watch read it there).
   */
  handle(
    req: IncomingMessage,
    res: ServerResponse,
    next: (request: IncomingMessage) => void,
  ): void {
    const target = String(req.headers['x-amz-target'] ?? '');
    const gated = this.options.services.find((s) => target.startsWith(s.targetPrefix));
    // Not an AWS operation (a health check's GET): the engine answers it, and holds no data.
    const service = gated?.service ?? 'dynamodb';
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('error', () => undefined);
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) req.destroy();
      else chunks.push(chunk);
    });
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      this.check(req, body, gated, target).then(
        (refusal) => {
          if (refusal) return refuse(res, service, refusal.kind, refusal.message);
          next(replay(req, body));
        },
        () => refuse(res, service, 'mismatch'),
      );
    });
  }

  private async check(
    req: IncomingMessage,
    body: Buffer,
    gated: GatedService | undefined,
    target: string,
  ): Promise<
    | { kind: 'denied' | 'missing' | 'unknown-key' | 'mismatch' | 'expired'; message?: string }
    | undefined
  > {
    const { identities } = this.options;
    const signature = await checkSignature(
      { method: req.method ?? 'POST', url: req.url ?? '/', headers: req.headers, body },
      (key) => identities.lookup(key)?.credentials,
    );
    if (!signature.ok) {
      // AWS's words, then (locally) where the keys this run accepts are kept.
      const hint = signature.fault === 'unknown-key' ? this.options.unknownKeyHint : undefined;
      if (!hint) return { kind: signature.fault };
      return { kind: signature.fault, message: `${signatureMessage(signature.fault)} ${hint}` };
    }
    const identity = identities.lookup(signature.accessKeyId)!;
    if (!gated) return undefined;
    let input: unknown;
    try {
      input = JSON.parse(body.toString('utf8') || '{}');
    } catch {
      return undefined;
    }
    const described = gated.describe(target.slice(gated.targetPrefix.length), input);
    if (!described) return undefined;
    for (const resource of described.resources) {
      const denial = this.judge(identity, described, resource);
      if (denial) return { kind: 'denied', message: denial };
    }
    return undefined;
  }

  /** IAM's message when `identity` may not act on `resource`, else `undefined`. */
  private judge(
    identity: Identity,
    described: Described,
    resource: Described['resources'][number],
  ): string | undefined {
    const request: AccessRequest = {
      principal: identity.principal,
      action: described.action,
      resource: resource.arn,
      context: described.context ?? {},
    };
    const identityPolicies =
      identity.role === undefined
        ? this.options.administrator
        : (this.options.policies.get(identity.name) ?? []);
    const decision = this.options.judge.decide(identity.name, request, {
      identity: identityPolicies,
      resource: resource.policy,
    });
    if (decision === 'Allowed') {
      this.options.onAllowed?.(identity.name, described.action, resource.arn);
      return undefined;
    }
    const why =
      decision === 'ExplicitlyDenied'
        ? 'explicit-deny'
        : resource.policy
          ? 'no-resource-allow'
          : 'no-identity-allow';
    this.options.log(
      `[iam] denied: ${identity.name} may not ${described.action} on ${resource.arn}${why === 'explicit-deny' ? ' (explicit deny)' : ''}`,
    );
    this.options.onDenied?.(identity.name, described.action, resource.arn);
    return deniedMessage(identity.principal, described.action, resource.arn, why);
  }
}

/** A request that reads `body` again, with the original's method, URL, headers and socket. */
export function replay(original: IncomingMessage, body: Buffer): IncomingMessage {
  const copy = new PassThrough();
  copy.end(body);
  return Object.assign(copy, {
    method: original.method,
    url: original.url,
    headers: original.headers,
    httpVersion: original.httpVersion,
    socket: original.socket,
  }) as unknown as IncomingMessage;
}
