/**
 * One queued delivery: which subscriber, the `webhook-id`, and the body exactly as it will be
 * sent (the NewPlant JSON text, so an int64 id keeps every digit from the stream to the wire).
 */
import * as v from 'valibot';
import { stringifyJson } from '../json-answer';
import { decodePlantImage } from '../plants-table';

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

/**
 * A stored plant's attributes (DynamoDB JSON, as a stream record's NewImage) as NewPlant JSON
 * text: its id with every digit and each of the schema's members it has, nothing else.
 */
export function newPlantBody(image: Record<string, unknown>): {
  readonly plantId: string;
  readonly body: string;
} {
  const plant = decodePlantImage(image);
  return { plantId: plant.id.toString(), body: stringifyJson(plant) };
}
