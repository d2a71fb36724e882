/**
 * One queued delivery: which subscriber, the `webhook-id`, and the body exactly as it will be
 * sent (the NewPlant JSON text, so an int64 id keeps every digit from the stream to the wire);
 * and how many of the receiver's attempts it has spent. The count lives in the message, not in
 * SQS's receive count, so that a receive ended by our own failure spends none: a failed attempt
 * queues a copy that counts one more and waits the schedule's delay.
 */
import * as v from 'valibot';
import { stringifyJson } from '../http/json-answer';
import { decodeImageState, decodePlantImage } from '../plants/decode';
import type { PlantWrite } from './events';
import { typedMembers } from './event-bodies';

/** The body of a message on the delivery queue. */
export const DeliveryMessage = v.object({
  webhookId: v.pipe(v.string(), v.regex(/^msg_[\w-]{1,64}$/)),
  subscriberId: v.pipe(v.string(), v.minLength(1)),
  /** The plant's id in decimal, for logs (the body already holds it). */
  plantId: v.pipe(v.string(), v.regex(/^-?\d{1,19}$/)),
  body: v.string(),
  /** The receiver's attempts already spent (failed) on this delivery. @default 0 */
  attempt: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0))),
  /** Seconds to wait, on the first receive, before this attempt (the schedule's delay). @default 0 */
  waitSeconds: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0))),
  /**
   * When the event's write was stored (a plant's `createdAt`, a change's `updatedAt`, a delete's
   * `deletedAt`): where `enable` replays from if it is kept.
   */
  storedAt: v.optional(v.string()),
  /**
   * When the receiver's first attempt was made (epoch ms): no delivery is dead-lettered sooner
   * than the horizon after it, however short the waits a receiver asked for. @default - now
   */
  firstAttemptAt: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0))),
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

/** When the plant of a stream image or table item was stored (`createdAt`), if it says. */
export function createdAtOf(image: Record<string, unknown>): string | undefined {
  const createdAt = (image.createdAt as { S?: unknown } | undefined)?.S;
  return typeof createdAt === 'string' ? createdAt : undefined;
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

/**
 * The body a subscriber that chose more than newPlant receives (`event-bodies.ts`): the event's
 * `type`, the plant after the write (a deletion: its id alone), and the pair a receiver orders
 * one id's events by: `createdAt` (the incarnation) and `version` (within it).
 */
export function typedBody(
  write: PlantWrite,
  image: Record<string, unknown>,
): { readonly plantId: string; readonly body: string } {
  // A deletion's body is its id alone: its tombstone keeps none of the plant's members.
  const plant =
    write.event === 'plantDeleted' ? { id: decodeImageState(image).id } : decodePlantImage(image);
  if (write.createdAt === undefined) {
    throw new Error(`the stored plant ${plant.id} has no createdAt to order its events by`);
  }
  return {
    plantId: plant.id.toString(),
    body: stringifyJson(
      typedMembers(write.event, {
        ...plant,
        type: write.event,
        createdAt: write.createdAt,
        version: write.version,
      }),
    ),
  };
}
