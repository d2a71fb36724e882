/**
 * The local account's gate on a real engine: a stranger's keys are refused by DynamoDB, SQS and
 * KMS with each service's own error; a function is judged by its role's policy (a missing grant
 * refused, logged once with the function, action and resource, an unused grant reported); the
 * key policy and the encryption context bind a sealed secret as KMS binds it.
 */
import { DecryptCommand, EncryptCommand, KMSClient } from '@aws-sdk/client-kms';
import {
  LOCAL_QUEUE_NAMES,
  LOCAL_SECRETS_KEY_ALIAS,
  localQueueUrl,
} from '../../../lib/local/names';
import {
  DynamoDBClient,
  GetItemCommand,
  ListTablesCommand,
  PutItemCommand,
} from '@aws-sdk/client-dynamodb';
import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { useLocalAccount } from '../../support/local-account';

const local = useLocalAccount();
const { lines, as, asSandbox: sandbox } = local;

const stranger = () => as({ accessKeyId: 'AKIASTRANGERSTRANGER', secretAccessKey: 'guessed' });
const queue = (name: string) => localQueueUrl(local.engine.endpoint, name);

it('refuses a stranger on the engine, the queues and the key, each with its own error', async () => {
  await expect(
    new DynamoDBClient(stranger()).send(new ListTablesCommand({})),
  ).rejects.toMatchObject({ name: 'UnrecognizedClientException' });
  await expect(
    new SQSClient(stranger()).send(
      new SendMessageCommand({ QueueUrl: queue(LOCAL_QUEUE_NAMES.deliveries), MessageBody: '{}' }),
    ),
  ).rejects.toMatchObject({ name: 'InvalidClientTokenId' });
  await expect(
    new KMSClient(stranger()).send(
      new EncryptCommand({ KeyId: LOCAL_SECRETS_KEY_ALIAS, Plaintext: Buffer.from('x') }),
    ),
  ).rejects.toMatchObject({ name: 'UnrecognizedClientException' });
});

it('refuses an issued key id signed with a wrong secret', async () => {
  const { accessKeyId } = local.engine.clientConfig.credentials;
  await expect(
    new DynamoDBClient(as({ accessKeyId, secretAccessKey: 'wrong' })).send(
      new ListTablesCommand({}),
    ),
  ).rejects.toMatchObject({ name: 'InvalidSignatureException' });
});

it('judges a function by its role: get-plant reads plants and may not write them (AccessDeniedException, logged once, with the grant that would allow it)', async () => {
  const client = new DynamoDBClient(sandbox('get-plant'));
  await expect(
    client.send(new GetItemCommand({ TableName: 'plants', Key: { id: { N: '1' } } })),
  ).resolves.toBeDefined();
  lines.length = 0;
  const denied = client.send(
    new PutItemCommand({ TableName: 'plants', Item: { id: { N: '1' }, name: { S: 'x' } } }),
  );
  await expect(denied).rejects.toMatchObject({ name: 'AccessDeniedException' });
  await expect(denied).rejects.toThrow(
    /^User: arn:aws:sts::000000000000:assumed-role\/GetPlantRole\/get-plant is not authorized to perform: dynamodb:PutItem on resource: arn:aws:dynamodb:local:000000000000:table\/plants because no identity-based policy allows/,
  );
  expect(lines).toEqual([
    '[iam] denied: get-plant may not dynamodb:PutItem on arn:aws:dynamodb:local:000000000000:table/plants',
    "[iam] to allow it, add 'putNew' to tables.plants in lambda/get-plant/grants.ts",
  ]);
});

it('judges SQS the same way: the fan-out sends deliveries, not dead letters (AccessDenied)', async () => {
  const sqs = new SQSClient(sandbox('fan-out'));
  const send = (name: string) =>
    sqs.send(new SendMessageCommand({ QueueUrl: queue(name), MessageBody: '{}' }));
  await expect(send(LOCAL_QUEUE_NAMES.deliveries)).resolves.toBeDefined();
  await expect(send(LOCAL_QUEUE_NAMES.deadLetters)).rejects.toMatchObject({
    name: 'AccessDenied',
  });
});

it('binds a sealed secret to its subscriber: the operator seals and the deliverer opens under a subscriber’s context only, nobody else opens', async () => {
  const operator = new KMSClient(as(local.engine.clientConfig.credentials));
  const context = { subscriberId: 'sub_a' };
  const { CiphertextBlob } = await operator.send(
    new EncryptCommand({
      KeyId: LOCAL_SECRETS_KEY_ALIAS,
      Plaintext: Buffer.from('whsec_x'),
      EncryptionContext: context,
    }),
  );
  const deliver = new KMSClient(sandbox('deliver'));
  const opened = await deliver.send(
    new DecryptCommand({ CiphertextBlob, EncryptionContext: context }),
  );
  expect(Buffer.from(opened.Plaintext!).toString()).toBe('whsec_x');
  await expect(
    deliver.send(
      new DecryptCommand({ CiphertextBlob, EncryptionContext: { subscriberId: 'sub_b' } }),
    ),
  ).rejects.toMatchObject({ name: 'InvalidCiphertextException' });
  // The key policy: only a subscriber's context, to seal as to open, and the account (the CLI)
  // never decrypts.
  for (const EncryptionContext of [{ other: 'x' }, undefined]) {
    await expect(
      operator.send(
        new EncryptCommand({
          KeyId: LOCAL_SECRETS_KEY_ALIAS,
          Plaintext: Buffer.from('whsec_x'),
          EncryptionContext,
        }),
      ),
    ).rejects.toMatchObject({ name: 'AccessDeniedException' });
  }
  await expect(
    deliver.send(new DecryptCommand({ CiphertextBlob, EncryptionContext: { other: 'x' } })),
  ).rejects.toMatchObject({ name: 'AccessDeniedException' });
  await expect(
    operator.send(new DecryptCommand({ CiphertextBlob, EncryptionContext: context })),
  ).rejects.toMatchObject({ name: 'AccessDeniedException' });
  await expect(
    new KMSClient(sandbox('create-plant')).send(
      new DecryptCommand({ CiphertextBlob, EncryptionContext: context }),
    ),
  ).rejects.toMatchObject({ name: 'AccessDeniedException' });
});

it('reports the grants no allowed call used', () => {
  const unused = local.account.unusedGrants();
  expect(unused).toContain(
    'create-plant dynamodb:PutItem on arn:aws:dynamodb:local:000000000000:table/plants',
  );
  expect(unused).not.toContain(
    'get-plant dynamodb:GetItem on arn:aws:dynamodb:local:000000000000:table/plants',
  );
});
