/**
 * One queued delivery: which subscriber, the `webhook-id`, and the body exactly as it will be
 * sent (the NewPlant JSON text, so an int64 id keeps every digit from the stream to the wire).
 */
import * as v from 'valibot';

/** The body of a message on the delivery queue. */
export const DeliveryMessage = v.object({
  webhookId: v.pipe(v.string(), v.regex(/^msg_[\w-]{1,64}$/)),
  subscriberId: v.pipe(v.string(), v.minLength(1)),
  /** The plant's id in decimal, for logs (the body already holds it). */
  plantId: v.pipe(v.string(), v.regex(/^-?\d{1,19}$/)),
  body: v.string(),
});
export type DeliveryMessage = v.InferOutput<typeof DeliveryMessage>;

/** A message body as a delivery, or `undefined` when it is not one. */
export function parseDeliveryMessage(text: string): DeliveryMessage | undefined {
  try {
    const parsed = v.safeParse(DeliveryMessage, JSON.parse(text));
    return parsed.success ? parsed.output : undefined;
  } catch {
    return undefined;
  }
}

/** A stored plant's attributes (DynamoDB JSON, as a stream record's NewImage) as NewPlant JSON text. */
export function newPlantBody(image: Record<string, { S?: string; N?: string }>): {
  readonly plantId: string;
  readonly body: string;
} {
  const id = image.id?.N;
  const name = image.name?.S;
  const tag = image.tag?.S;
  // BigInt reads the exact digits; a stored id is always an integer, so anything else is a bug.
  if (id === undefined || !/^-?\d+$/.test(id) || name === undefined) {
    throw new Error('the stream record is not a stored plant (no integer id or no name)');
  }
  const plantId = BigInt(id).toString();
  const body = `{"id":${plantId},"name":${JSON.stringify(name)}${tag === undefined ? '' : `,"tag":${JSON.stringify(tag)}`}}`;
  return { plantId, body };
}
