/**
 * The part of SQS's JSON protocol (`x-amz-target: AmazonSQS.<Action>`) that the webhook
 * functions and `npm run webhook -- dead-letters` call, answered from the local queues. It is
 * served on the engine's port, so one endpoint is both `AWS_ENDPOINT_URL_DYNAMODB` and
 * `AWS_ENDPOINT_URL_SQS` locally.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { LocalQueue, QueueMessage } from './queue';
import { MAX_VISIBILITY_SECONDS } from '../../../lambda/webhook/visibility';
import {
  checkSqsInput,
  invalidContents,
  invalidParameter,
  isSqsAction,
  MAX_MESSAGE_BYTES,
  type SqsFault,
} from './input';

/** An answer in SQS's JSON protocol. */
export interface SqsAnswer {
  readonly status: number;
  readonly body: unknown;
  readonly queryError?: string;
}

/** The `x-amz-target` prefix of SQS's JSON protocol. */
export const SQS_TARGET_PREFIX = 'AmazonSQS.';

/**
 * Faults a test or the bench injects into the local SQS endpoint (`npm start` injects none): what
 * a real queue does only on a bad day, on cue.
 */
export interface SqsFaults {
  /** Each call is answered this many ms after it arrived (a Region's round trip). @default 0 */
  readonly latencyMs?: number;
  /**
   * What becomes of one call: `hang`, it is never carried out nor answered (lost on the way);
   * `lose-answer`, it is carried out and the connection closed unanswered (lost on the way back).
   * @default - carried out and answered
   */
  readonly call?: (action: string, input: unknown) => 'hang' | 'lose-answer' | undefined;
  /**
   * True for a SendMessageBatch entry the queue refuses this time, on its side (`SenderFault`
   * false: sending it again may succeed). @default - none refused
   */
  readonly refuseEntry?: (entry: { readonly Id: string; readonly MessageBody: string }) => boolean;
}

/**
 * The largest request read: a batch of 262,144 bytes of bodies, each character escaped at most
 * six bytes in JSON, and the rest of the request. Longer: refused, the rest not read.
 */
export const MAX_SQS_REQUEST_BYTES = 6 * MAX_MESSAGE_BYTES + 64 * 1024;

function fault({ code, type, message }: SqsFault, status = 400): SqsAnswer {
  const sender = status < 500 ? 'Sender' : 'Receiver';
  return { status, body: { __type: type, message }, queryError: `${code};${sender}` };
}

/**
 * Serves one SQS request (`x-amz-target: AmazonSQS.<Action>`) from `queues`: reads at most
 * `MAX_SQS_REQUEST_BYTES`, and whatever the body holds (not JSON, `null`, a wrong shape, a value
 * out of range) answers SQS's error for it; nothing it receives can throw out of here.
 */
export function serveSqs(
  req: IncomingMessage,
  res: ServerResponse,
  queues: readonly LocalQueue[],
  faults: SqsFaults = {},
): void {
  const action = String(req.headers['x-amz-target']).slice(SQS_TARGET_PREFIX.length);
  const chunks: Buffer[] = [];
  let received = 0;
  let answered = false;
  const send = (answer: SqsAnswer, close = false) => {
    if (answered || res.destroyed) return;
    answered = true;
    const body = JSON.stringify(answer.body);
    res.writeHead(answer.status, {
      'content-type': 'application/x-amz-json-1.0',
      'content-length': Buffer.byteLength(body),
      'x-amzn-requestid': randomUUID(),
      ...(answer.queryError ? { 'x-amzn-query-error': answer.queryError } : {}),
      ...(close ? { connection: 'close' } : {}),
    });
    res.end(body);
  };
  req.on('error', () => undefined);
  req.on('data', (chunk: Buffer) => {
    received += chunk.length;
    if (received <= MAX_SQS_REQUEST_BYTES) return void chunks.push(chunk);
    chunks.length = 0;
    // Answered now; the rest is not read, and the connection closes with the answer.
    send(
      fault({
        code: 'InvalidParameterValue',
        type: 'com.amazon.coral.service#InvalidParameterValueException',
        message: `The request must be at most ${MAX_SQS_REQUEST_BYTES} bytes.`,
      }),
      true,
    );
    req.pause();
  });
  const arrived = Date.now();
  req.on('end', () => {
    if (answered) return;
    let injected: ReturnType<NonNullable<SqsFaults['call']>>;
    let input: unknown;
    try {
      input = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}');
    } catch {
      input = undefined;
    }
    // A bug of ours: SQS's own answer to it, and the runtime keeps serving.
    const internalFailure = () =>
      fault(
        {
          code: 'InternalFailure',
          type: 'com.amazonaws.sqs#InternalFailure',
          message: 'The request processing has failed because of an unknown error.',
        },
        500,
      );
    const answerOnce = () => {
      try {
        return answerSqs(action, input, queues, faults);
      } catch {
        return internalFailure();
      }
    };
    try {
      injected = faults.call?.(action, input);
    } catch {
      return void send(internalFailure());
    }
    if (injected === 'hang') return;
    // Answered `latencyMs` after the call arrived, however long it waited for a message.
    const reply = (answer: SqsAnswer) => {
      const wait = Math.max(0, arrived + (faults.latencyMs ?? 0) - Date.now());
      const go = () => (injected === 'lose-answer' ? void res.destroy() : send(answer));
      if (wait > 0) setTimeout(go, wait);
      else go();
    };
    const answer = answerOnce();
    const poll = longPoll(action, input, queues, answer);
    if (!poll) return reply(answer);
    waitForMessage(res, poll, answerOnce, reply);
  });
}

/**
 * Long polling: a receive that found nothing waits, as SQS's does, until a message becomes visible
 * on its queue or its `WaitTimeSeconds` (real seconds: no retry scale shortens it) has passed,
 * then answers what a receive finds then. The queue's news is acted on a turn later (a batch sent
 * is there whole, and the sender's call is not the one receiving); a caller that has gone (its
 * connection ended or closed) is not answered and receives nothing.
 */
function waitForMessage(
  res: ServerResponse,
  poll: { readonly queue: LocalQueue; readonly waitMs: number },
  receive: () => SqsAnswer,
  reply: (answer: SqsAnswer) => void,
): void {
  // The request's socket, not the response's: a pipelined response has none until the one
  // before it on the connection is done.
  const socket = res.req.socket;
  const gone = () => res.destroyed || socket.destroyed || socket.readableEnded;
  let looking = false;
  let finished = false;
  const done = () => {
    finished = true;
    clearTimeout(timer);
    stopListening();
    res.off('close', done);
  };
  const look = (last: boolean) => {
    looking = false;
    // A look queued before the wait ended (answered, or the caller gone) takes nothing.
    if (finished) return;
    if (gone()) return done();
    const answer = receive();
    if (!last && answer.status === 200 && isEmptyReceive(answer)) return;
    done();
    reply(answer);
  };
  const timer = setTimeout(() => look(true), poll.waitMs).unref();
  const wake = () => {
    if (looking) return;
    looking = true;
    setImmediate(() => look(false));
  };
  const stopListening = poll.queue.onAvailable(wake);
  res.once('close', done);
  // Something may have become visible between the first receive and the listening.
  wake();
}

/** Whether `answer` is a ReceiveMessage answer without messages. */
function isEmptyReceive(answer: SqsAnswer): boolean {
  return (answer.body as { Messages?: unknown[] }).Messages?.length === 0;
}

/**
 * The queue and the wait of a ReceiveMessage that found nothing and asked to wait for a message
 * (`WaitTimeSeconds` over 0); `undefined` for any other call or answer.
 */
function longPoll(
  action: string,
  input: unknown,
  queues: readonly LocalQueue[],
  answer: SqsAnswer,
): { queue: LocalQueue; waitMs: number } | undefined {
  if (action !== 'ReceiveMessage' || answer.status !== 200 || !isEmptyReceive(answer)) {
    return undefined;
  }
  // A 200 answer: the input passed checkSqsInput (WaitTimeSeconds a whole number from 0 to 20).
  const { QueueUrl, WaitTimeSeconds } = input as { QueueUrl: string; WaitTimeSeconds?: number };
  const queue = queueByUrl(queues, QueueUrl);
  if (!queue || !WaitTimeSeconds) return undefined;
  return { queue, waitMs: WaitTimeSeconds * 1000 };
}

/** The queue of `queues` that `url` names (its last segment is the queue's name). */
function queueByUrl(queues: readonly LocalQueue[], url: unknown): LocalQueue | undefined {
  const name = String(url).split('/').pop();
  return queues.find((q) => q.name === name);
}

/** Answers one SQS action against `queues` (by name; the URL's last segment names the queue). */
export function answerSqs(
  action: string,
  raw: unknown,
  queues: readonly LocalQueue[],
  faults: Pick<SqsFaults, 'refuseEntry'> = {},
): SqsAnswer {
  if (!isSqsAction(action)) {
    return fault({
      code: 'AWS.SimpleQueueService.UnsupportedOperation',
      type: 'com.amazonaws.sqs#UnsupportedOperation',
      message: `the local queue does not support ${action}`,
    });
  }
  const checked = checkSqsInput(action, raw);
  if ('fault' in checked) return fault(checked.fault);
  const input = checked.input as Record<string, unknown>;
  const byName = (name: unknown) => queues.find((q) => q.name === name);
  const byArn = (arn: unknown) => queues.find((q) => q.options.arn === arn);
  const missing = () =>
    fault({
      code: 'AWS.SimpleQueueService.NonExistentQueue',
      type: 'com.amazonaws.sqs#QueueDoesNotExist',
      message: 'The specified queue does not exist.',
    });
  const badHandle = () =>
    fault({
      code: 'ReceiptHandleIsInvalid',
      type: 'com.amazonaws.sqs#ReceiptHandleIsInvalid',
      message: 'The receipt handle is not valid.',
    });
  const ok = (body: unknown = {}): SqsAnswer => ({ status: 200, body });

  if (action === 'GetQueueUrl') {
    const queue = byName(input.QueueName);
    return queue ? ok({ QueueUrl: queue.options.url }) : missing();
  }
  if (action === 'StartMessageMoveTask') {
    const source = byArn(input.SourceArn);
    const destination = input.DestinationArn
      ? byArn(input.DestinationArn)
      : queues.find((q) => q.options.deadLetter?.queue === source);
    if (!source || !destination) return missing();
    source.moveAllTo(destination);
    return ok({ TaskHandle: `local-${Date.now()}` });
  }
  const queue = queueByUrl(queues, input.QueueUrl);
  if (!queue) return missing();
  switch (action) {
    case 'SendMessage': {
      const contents = invalidContents(input.MessageBody as string);
      if (contents) return fault(contents);
      const sent = queue.send(input.MessageBody as string);
      return ok({ MessageId: sent.messageId, MD5OfMessageBody: sent.md5OfBody });
    }
    case 'SendMessageBatch': {
      const entries = input.Entries as { Id: string; MessageBody: string }[];
      // Each entry's own refusal: its contents (the sender's fault), or one injected (the queue's).
      const failed = new Map(
        entries.flatMap((entry) => {
          const contents = invalidContents(entry.MessageBody);
          if (contents) {
            return [[entry, { SenderFault: true, Code: contents.code, Message: contents.message }]];
          }
          if (!faults.refuseEntry?.(entry)) return [];
          const Message = 'We encountered an internal error. Please try again.';
          return [[entry, { SenderFault: false, Code: 'InternalError', Message }]];
        }),
      );
      return ok({
        Successful: entries
          .filter((entry) => !failed.has(entry))
          .map((entry) => {
            const sent = queue.send(entry.MessageBody);
            return { Id: entry.Id, MessageId: sent.messageId, MD5OfMessageBody: sent.md5OfBody };
          }),
        Failed: [...failed].map(([entry, refusal]) => ({ Id: entry.Id, ...refusal })),
      });
    }
    case 'ReceiveMessage': {
      const max = (input.MaxNumberOfMessages as number | undefined) ?? 1;
      const visibility = input.VisibilityTimeout as number | undefined;
      return ok({ Messages: queue.receive(max, visibility).map(sqsMessage) });
    }
    case 'DeleteMessage':
      return queue.delete(input.ReceiptHandle as string) ? ok() : badHandle();
    case 'ChangeMessageVisibility': {
      const seconds = input.VisibilityTimeout as number;
      const changed = queue.changeVisibility(input.ReceiptHandle as string, seconds);
      if (changed === 'unknown') return badHandle();
      if (changed === 'beyond-limit') {
        // SQS's own words for a visibility that would end past 12 h from the receive.
        return fault(
          invalidParameter(
            `Value ${seconds} for parameter VisibilityTimeout is invalid. Reason: Total VisibilityTimeout for the message is beyond the limit [${MAX_VISIBILITY_SECONDS} seconds].`,
          ),
        );
      }
      return ok();
    }
    default: {
      const { visible, invisible } = queue.counts();
      return ok({
        Attributes: {
          QueueArn: queue.options.arn,
          ApproximateNumberOfMessages: String(visible),
          ApproximateNumberOfMessagesNotVisible: String(invisible),
        },
      });
    }
  }
}

/** A message as ReceiveMessage answers it. */
function sqsMessage(message: QueueMessage) {
  return {
    MessageId: message.messageId,
    ReceiptHandle: message.receiptHandle,
    MD5OfBody: message.md5OfBody,
    Body: message.body,
    Attributes: {
      ApproximateReceiveCount: String(message.receiveCount),
      SentTimestamp: String(message.sentAt),
      ApproximateFirstReceiveTimestamp: String(message.firstReceivedAt ?? Date.now()),
      SenderId: 'local',
    },
  };
}
