/**
 * Subscriber secrets that an `npm start` before the local KMS stored in plain text (`local:` and
 * the secret) are sealed with the local KMS on the first start of this one, as `webhook add`
 * seals them now: nothing is lost (the deliverer signs with the same secrets), nothing stays in
 * plain text, and one line says how many.
 */
import { KMSClient } from '@aws-sdk/client-kms';
import { LOCAL_SECRETS_KEY_ALIAS } from '../names';
import { paginateScan, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { makeDocumentClient } from '../../../lambda/aws/dynamodb';
import { SUBSCRIPTIONS_TABLE } from '../../../lambda/aws/tables';
import { kmsSecretBox } from '../../../lambda/webhook/secrets';
import type { Engine } from '../dynamodb/engine';

/** How a secret was stored before the local KMS. */
const PLAIN_PREFIX = 'local:';
const SECRET_ATTRIBUTES = ['secret', 'previousSecret'] as const;

/** Seals every plain-text secret on `engine`'s subscriptions table; answers how many. */
export async function sealPlainSecrets(
  engine: Pick<Engine, 'clientConfig'>,
  log: (line: string) => void,
): Promise<number> {
  const client = makeDocumentClient(engine.clientConfig);
  const box = kmsSecretBox(LOCAL_SECRETS_KEY_ALIAS, new KMSClient(engine.clientConfig));
  const key = SUBSCRIPTIONS_TABLE.partitionKey.name;
  let sealed = 0;
  try {
    const pages = paginateScan(
      { client },
      {
        TableName: SUBSCRIPTIONS_TABLE.localName,
        ConsistentRead: true,
        ProjectionExpression: [key, ...SECRET_ATTRIBUTES].join(', '),
      },
    );
    for await (const page of pages) {
      for (const item of page.Items ?? []) {
        const subscriberId = String(item[key]);
        for (const attribute of SECRET_ATTRIBUTES) {
          const stored = item[attribute];
          if (typeof stored !== 'string' || !stored.startsWith(PLAIN_PREFIX)) continue;
          const secret = stored.slice(PLAIN_PREFIX.length);
          // Only if it is still the plain value read: a rotation meanwhile keeps its own.
          await client.send(
            new UpdateCommand({
              TableName: SUBSCRIPTIONS_TABLE.localName,
              Key: { [key]: subscriberId },
              UpdateExpression: 'SET #secret = :sealed',
              ConditionExpression: '#secret = :plain',
              ExpressionAttributeNames: { '#secret': attribute },
              ExpressionAttributeValues: {
                ':sealed': await box.seal(secret, subscriberId),
                ':plain': stored,
              },
            }),
          );
          sealed += 1;
        }
      }
    }
  } finally {
    client.destroy();
  }
  if (sealed > 0) {
    log(
      `sealed ${sealed} webhook subscriber secret${sealed === 1 ? '' : 's'} that an earlier npm start kept in plain text, with the local KMS key ${LOCAL_SECRETS_KEY_ALIAS} (the same secrets sign as before)`,
    );
  }
  return sealed;
}
