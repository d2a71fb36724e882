/**
 * What every SDK client of the functions is built with: our SHA-256 answers as the SDK's own
 * does (digests, HMACs, SigV4 signatures, errors), and our logger spares the SDK the record it
 * builds for `info` after every command.
 */
import { DynamoDBClient, GetItemCommand } from '@aws-sdk/client-dynamodb';
import { clearCredentialCache, SignatureV4 } from '@smithy/signature-v4';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from '@smithy/types';
import { makeDocumentClient } from '../../../lambda/aws/dynamodb';
import { SDK_CLIENT_OPTIONS, SDK_LOGGER, Sha256 } from '../../../lambda/aws/sdk-client';
import { makeSqsClient } from '../../../lambda/webhook/delivery-queue';
import { makeKmsClient } from '../../../lambda/webhook/secrets';

/** The class a client uses when it is given none: the SDK's SHA-256 for Node. */
const SdkSha256 = new DynamoDBClient({ region: 'eu-west-1' }).config.sha256;

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');
const bytes = (text: string) => new TextEncoder().encode(text);

async function digestOf(
  Hash: typeof Sha256,
  secret: ConstructorParameters<typeof Sha256>[0],
  chunks: readonly Uint8Array[],
): Promise<string> {
  const hash = new Hash(secret);
  for (const chunk of chunks) hash.update(chunk);
  return hex(await hash.digest());
}

describe('Sha256', () => {
  // A view into a larger buffer: only its own bytes are the key.
  const view = new Uint8Array(Buffer.from('--key bytes--')).subarray(2, 11);
  const secrets = {
    none: undefined,
    'an empty string': '',
    'a string': 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY é',
    bytes: bytes('AWS4secret'),
    'a view into a larger buffer': view,
    'an ArrayBuffer': bytes('array buffer key').buffer,
    'empty bytes': new Uint8Array(0),
  };
  const inputs = [[], [bytes('')], [bytes('one chunk')], [bytes('two '), bytes('chunks é')]];

  it.each(Object.entries(secrets))(
    'digests as the SDK does, with %s as the key',
    async (_, key) => {
      for (const chunks of inputs) {
        const ours = await digestOf(Sha256, key, chunks);
        expect(ours).toBe(await digestOf(SdkSha256 as typeof Sha256, key, chunks));
      }
    },
  );

  it('reads a hash and goes on, refuses an HMAC after its digest, and starts over on reset', async () => {
    for (const Hash of [Sha256, SdkSha256 as typeof Sha256]) {
      const hash = new Hash();
      hash.update(bytes('a'));
      const first = hex(await hash.digest());
      hash.update(bytes('b'));
      expect(hex(await hash.digest())).toBe(await digestOf(Hash, undefined, [bytes('ab')]));
      expect(first).toBe(await digestOf(Hash, undefined, [bytes('a')]));

      const hmac = new Hash('key');
      hmac.update(bytes('a'));
      await hmac.digest();
      expect(() => hmac.update(bytes('b'))).toThrow(
        'Attempted to update an already finished hash.',
      );
      hmac.reset();
      hmac.update(bytes('b'));
      expect(hex(await hmac.digest())).toBe(await digestOf(Hash, 'key', [bytes('b')]));
    }
  });

  it('signs a request as the SDK does (SigV4: the signing key and the signature are HMACs)', async () => {
    const sign = (sha256: typeof Sha256) =>
      new SignatureV4({
        service: 'dynamodb',
        region: 'eu-west-1',
        credentials: {
          accessKeyId: 'AKIDEXAMPLE',
          secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY',
          sessionToken: 'session',
        },
        sha256,
      }).sign(
        {
          method: 'POST',
          protocol: 'https:',
          hostname: 'dynamodb.eu-west-1.amazonaws.com',
          path: '/',
          headers: {
            host: 'dynamodb.eu-west-1.amazonaws.com',
            'x-amz-target': 'DynamoDB_20120810.GetItem',
          },
          body: '{"TableName":"plants","Key":{"id":{"N":"1"}}}',
        },
        { signingDate: new Date('2026-11-30T12:00:00Z') },
      );
    // Each derives its signing key: the SDK caches them, whoever derived them.
    clearCredentialCache();
    const ours = await sign(Sha256);
    clearCredentialCache();
    const sdk = await sign(SdkSha256 as typeof Sha256);
    expect(ours.headers.authorization).toMatch(/Signature=[0-9a-f]{64}$/);
    expect(ours.headers).toEqual(sdk.headers);
  });
});

describe('SDK_LOGGER', () => {
  let server: Server;
  let endpoint: string;
  beforeAll(async () => {
    server = createServer((request, response) => {
      request.resume();
      request.on('end', () => {
        response.setHeader('content-type', 'application/x-amz-json-1.0');
        response.end('{"Item":{"id":{"N":"1"}}}');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise((resolve) => server.close(resolve)));

  const getItem = (logger: Logger) =>
    new DynamoDBClient({
      ...SDK_CLIENT_OPTIONS,
      logger,
      endpoint,
      region: 'eu-west-1',
      credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'secret' },
    }).send(new GetItemCommand({ TableName: 'plants', Key: { id: { N: '1' } } }));

  it('has no info, which the SDK calls after every command with a record it builds for it', async () => {
    const info = jest.fn();
    await getItem({ ...SDK_LOGGER, info });
    expect(info).toHaveBeenCalledTimes(1);
    expect(info.mock.calls[0][0]).toMatchObject({ commandName: 'GetItemCommand' });

    expect('info' in SDK_LOGGER).toBe(false);
    await expect(getItem(SDK_CLIENT_OPTIONS.logger)).resolves.toMatchObject({
      Item: { id: { N: '1' } },
    });
  });

  it('says the SDK’s warnings, and drops its debug lines and errors', () => {
    const warn = jest.spyOn(console, 'warn').mockImplementation(() => undefined);
    try {
      SDK_LOGGER.warn('socket pool at capacity');
      SDK_LOGGER.debug('dropped');
      SDK_LOGGER.error('dropped');
      expect(warn.mock.calls).toEqual([['socket pool at capacity']]);
    } finally {
      warn.mockRestore();
    }
  });
});

it.each([
  ['DynamoDB', () => makeDocumentClient().config],
  ['SQS', () => makeSqsClient().config],
  ['KMS', () => makeKmsClient().config],
])('the %s client of the functions is built with them', (_, config) => {
  expect(config()).toMatchObject({ logger: SDK_LOGGER, sha256: Sha256 });
});
