/**
 * Which failed tries of a plant write `sentOnce` lets the SDK send again: only those surely not
 * made (DynamoDB refused them, or no connection was made); every other failure may follow a
 * write DynamoDB made, and is `MaybeWritten`, which the SDK's retry does not send again.
 */
import {
  ConditionalCheckFailedException,
  InternalServerError,
  ProvisionedThroughputExceededException,
} from '@aws-sdk/client-dynamodb';
import { MaybeWritten, mayHaveBeenMade } from '../../../lambda/aws/sent-once';

/** An error as Node or the SDK's HTTP handler makes it. */
const failure = (message: string, fields: Record<string, unknown>) =>
  Object.assign(new Error(message), fields);

it('takes a refusal, a throttle and a connection never made as not made', () => {
  for (const refused of [
    new ConditionalCheckFailedException({ message: 'refused', $metadata: { httpStatusCode: 400 } }),
    // An injected throttle may carry no status: its class says it is the client's fault.
    new ProvisionedThroughputExceededException({ message: 'throttled', $metadata: {} }),
    failure('connect ECONNREFUSED 127.0.0.1:8000', { code: 'ECONNREFUSED' }),
    failure('getaddrinfo ENOTFOUND dynamodb', { code: 'ENOTFOUND' }),
    // @smithy/node-http-handler's connectionTimeout, as it words it.
    failure(
      '@smithy/node-http-handler - the request socket did not establish a connection with the server within the configured timeout of 1000 ms.',
      { name: 'TimeoutError' },
    ),
  ]) {
    expect([refused.message, mayHaveBeenMade(refused)]).toEqual([refused.message, false]);
  }
});

it('takes a 5xx, a reset, a request timeout and an unknown failure as maybe made', () => {
  for (const maybe of [
    new InternalServerError({
      message: 'Internal server error',
      $metadata: { httpStatusCode: 500 },
    }),
    failure('socket hang up', { code: 'ECONNRESET' }),
    failure('a request has exceeded the configured 2000 ms requestTimeout.', {
      name: 'TimeoutError',
      code: 'ETIMEDOUT',
    }),
    new Error('something else'),
    undefined,
  ]) {
    expect(mayHaveBeenMade(maybe)).toBe(true);
  }
});

it('keeps the failure off `cause`, where the SDK would find it retryable', () => {
  const reset = failure('socket hang up', { code: 'ECONNRESET' });
  const wrapped = new MaybeWritten(reset);
  expect(wrapped).toMatchObject({ name: 'MaybeWritten', failure: reset });
  expect(wrapped.cause).toBeUndefined();
});
