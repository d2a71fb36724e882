/**
 * What the local SQS endpoint accepts, checked as SQS checks it before any queue is touched: each
 * action's members and their types, the ranges SQS documents (`VisibilityTimeout` 0–43,200,
 * `MaxNumberOfMessages` 1–10, `WaitTimeSeconds` 0–20, `DelaySeconds` 0–900), a message body of
 * 1 to 262,144 bytes (the queue's default maximum message size) of SQS's characters (the
 * call's error for SendMessage, the entry's in a batch: `invalidContents`), and a batch's `Entries`
 * (1 to 10, distinct ids of at most 80 letters, digits, `-` or `_`, 262,144 bytes in all).
 * A refusal is SQS's error: its query error code (what SDKs name the error) and message.
 */
import * as v from 'valibot';
import { MAX_VISIBILITY_SECONDS } from '../../../lambda/webhook/visibility';
import {
  BATCH_ENTRIES,
  OUTSIDE_SQS_CHARACTERS,
  SQS_MESSAGE_LIMIT_BYTES,
} from '../../../lambda/webhook/queue-body';

/** A refusal: the query-compatible code, the JSON `__type` and SQS's message. */
export interface SqsFault {
  readonly code: string;
  readonly type: string;
  readonly message: string;
}

/** Largest message body, and largest batch in all, in bytes (SQS's default maximum message size). */
export const MAX_MESSAGE_BYTES = SQS_MESSAGE_LIMIT_BYTES;
/** Messages in one batch at most. */
const MAX_BATCH_ENTRIES = BATCH_ENTRIES;

const inRange = (min: number, max: number) =>
  v.pipe(
    v.number(),
    v.integer(`Must be an integer from ${min} to ${max}, if provided.`),
    v.minValue(min, `Must be between ${min} and ${max}, if provided.`),
    v.maxValue(max, `Must be between ${min} and ${max}, if provided.`),
  );
const text = v.string('Must be a string.');
const body = v.pipe(
  text,
  v.check((s) => s.length > 0, 'The message body must be at least one character.'),
  v.check(
    (s) => Buffer.byteLength(s) <= MAX_MESSAGE_BYTES,
    `Message must be shorter than ${MAX_MESSAGE_BYTES} bytes.`,
  ),
);
const queue = { QueueUrl: text };
const delay = { DelaySeconds: v.optional(inRange(0, 900)) };
const entry = v.looseObject({ Id: text, MessageBody: body, ...delay });

/** The members each supported action reads, with their rules; others are ignored. */
const ACTIONS = {
  GetQueueUrl: v.looseObject({ QueueName: text }),
  SendMessage: v.looseObject({ ...queue, MessageBody: body, ...delay }),
  SendMessageBatch: v.looseObject({ ...queue, Entries: v.array(entry, 'Must be a list.') }),
  ReceiveMessage: v.looseObject({
    ...queue,
    MaxNumberOfMessages: v.optional(inRange(1, 10)),
    VisibilityTimeout: v.optional(inRange(0, MAX_VISIBILITY_SECONDS)),
    WaitTimeSeconds: v.optional(inRange(0, 20)),
  }),
  DeleteMessage: v.looseObject({ ...queue, ReceiptHandle: text }),
  ChangeMessageVisibility: v.looseObject({
    ...queue,
    ReceiptHandle: text,
    VisibilityTimeout: inRange(0, MAX_VISIBILITY_SECONDS),
  }),
  GetQueueAttributes: v.looseObject({
    ...queue,
    AttributeNames: v.optional(v.array(text, 'Must be a list.')),
  }),
  StartMessageMoveTask: v.looseObject({
    SourceArn: text,
    DestinationArn: v.optional(text),
    MaxNumberOfMessagesPerSecond: v.optional(inRange(1, 500)),
  }),
} as const;

/** An action the local queues answer. */
export type SqsAction = keyof typeof ACTIONS;
/** The checked input of `action`. */
export type SqsInput<A extends SqsAction> = v.InferOutput<(typeof ACTIONS)[A]>;

/** True for an action the local endpoint answers. */
export function isSqsAction(action: string): action is SqsAction {
  return Object.hasOwn(ACTIONS, action);
}

/** The checked input of `action`, or SQS's refusal of it. */
export function checkSqsInput<A extends SqsAction>(
  action: A,
  input: unknown,
): { input: SqsInput<A> } | { fault: SqsFault } {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    return {
      fault: {
        code: 'SerializationException',
        type: 'com.amazon.coral.service#SerializationException',
        message: 'The request body must be a JSON object.',
      },
    };
  }
  const result = v.safeParse(ACTIONS[action], input);
  if (!result.success) return { fault: faultOf(result.issues[0]) };
  if (action === 'SendMessageBatch') {
    const fault = batchFault((result.output as SqsInput<'SendMessageBatch'>).Entries);
    if (fault) return { fault };
  }
  return { input: result.output as SqsInput<A> };
}

/** SQS's answer to the first issue: a missing member, or a value it refuses. */
function faultOf(issue: v.BaseIssue<unknown>): SqsFault {
  const path = (issue.path ?? []).map((item) => String(item.key));
  const name = path.filter((key) => !/^\d+$/.test(key)).join('.');
  if (issue.input === undefined) {
    return {
      code: 'MissingParameter',
      type: 'com.amazon.coral.service#MissingParameterException',
      message: `The request must contain the parameter ${name}.`,
    };
  }
  const shown = typeof issue.input === 'string' ? issue.input : JSON.stringify(issue.input);
  const value = shown.length > 64 ? `${shown.slice(0, 64)}…` : shown;
  return invalidParameter(
    `Value ${value} for parameter ${name} is invalid. Reason: ${issue.message}`,
  );
}

/** The checks SQS makes of a batch as a whole. */
function batchFault(entries: readonly { Id: string; MessageBody: string }[]): SqsFault | undefined {
  const batchError = (code: string, message: string): SqsFault => ({
    code: `AWS.SimpleQueueService.${code}`,
    type: `com.amazonaws.sqs#${code}`,
    message,
  });
  if (entries.length === 0) {
    return batchError(
      'EmptyBatchRequest',
      'There should be at least one SendMessageBatchRequestEntry in the request.',
    );
  }
  if (entries.length > MAX_BATCH_ENTRIES) {
    return batchError(
      'TooManyEntriesInBatchRequest',
      `Maximum number of entries per request are ${MAX_BATCH_ENTRIES}. You have sent ${entries.length}.`,
    );
  }
  const invalid = entries.find((e) => !/^[\w-]{1,80}$/.test(e.Id));
  if (invalid) {
    return batchError(
      'InvalidBatchEntryId',
      'A batch entry id can only contain alphanumeric characters, hyphens and underscores. It can be at most 80 letters long.',
    );
  }
  if (new Set(entries.map((e) => e.Id)).size !== entries.length) {
    return batchError(
      'BatchEntryIdsNotDistinct',
      'Two or more batch entries in the request have the same Id.',
    );
  }
  const bytes = entries.reduce((sum, e) => sum + Buffer.byteLength(e.MessageBody), 0);
  if (bytes > MAX_MESSAGE_BYTES) {
    return batchError(
      'BatchRequestTooLong',
      `Batch requests cannot be longer than ${MAX_MESSAGE_BYTES} bytes. You have sent ${bytes} bytes.`,
    );
  }
  return undefined;
}

/**
 * SQS's refusal of a body holding a character outside its set (for SendMessage, the call's
 * error; in a SendMessageBatch, that entry's, `SenderFault`); `undefined` when it has none.
 */
export function invalidContents(body: string): SqsFault | undefined {
  if (!OUTSIDE_SQS_CHARACTERS.test(body)) return undefined;
  return {
    code: 'InvalidMessageContents',
    type: 'com.amazonaws.sqs#InvalidMessageContents',
    message:
      'Invalid characters found. Valid unicode characters are #x9 | #xA | #xD | #x20 to #xD7FF | #xE000 to #xFFFD | #x10000 to #x10FFFF',
  };
}

/** SQS's `InvalidParameterValue`. */
export function invalidParameter(message: string): SqsFault {
  return {
    code: 'InvalidParameterValue',
    type: 'com.amazon.coral.service#InvalidParameterValueException',
    message,
  };
}
