/**
 * What an SQS request asks of IAM: the action SQS authorizes (a batch by its single action) on
 * the queue its body names; the access gate judges it before the local queues read it.
 */
import type { Described, GatedService } from '../iam/gate';
import { LOCAL_ACCOUNT, LOCAL_REGION } from '../iam/identities';

/** The local queue ARN of `name`. */
export function localQueueArn(name: string): string {
  return `arn:aws:sqs:${LOCAL_REGION}:${LOCAL_ACCOUNT}:${name}`;
}

/** The action a batch call is authorized as. */
const BATCHES: Readonly<Record<string, string>> = {
  SendMessageBatch: 'SendMessage',
  DeleteMessageBatch: 'DeleteMessage',
  ChangeMessageVisibilityBatch: 'ChangeMessageVisibility',
};

/** SQS's operations behind the gate. */
export const SQS_ACCESS: GatedService = {
  service: 'sqs',
  targetPrefix: 'AmazonSQS.',
  describe(operation, raw): Described | undefined {
    const input = (raw ?? {}) as { QueueUrl?: unknown; QueueName?: unknown; SourceArn?: unknown };
    const action = `sqs:${BATCHES[operation] ?? operation}`;
    const name =
      typeof input.QueueUrl === 'string'
        ? input.QueueUrl.split('/').pop()
        : typeof input.QueueName === 'string'
          ? input.QueueName
          : undefined;
    if (name) return { action, resources: [{ arn: localQueueArn(name) }] };
    if (typeof input.SourceArn === 'string')
      return { action, resources: [{ arn: input.SourceArn }] };
    return { action, resources: [{ arn: '*' }] };
  },
};
