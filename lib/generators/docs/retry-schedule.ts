/**
 * The `retry-schedule` block: the webhook's retry delays as one short list and the horizon, from
 * the schedule the deliver function runs (`lambda/webhook/schedule.ts`), deployed and locally at
 * `PLANT_STORE_WEBHOOK_RETRY_SCALE=0.01`.
 */
import { WEBHOOK_ENVIRONMENT } from '../../../lambda/webhook/config';
import { HORIZON_SECONDS, JITTER, MAX_ATTEMPTS } from '../../../lambda/webhook/schedule';
import { durationText, retryScheduleText } from '../../definitions/webhooks';

/** The scale the block shows beside the deployed schedule. */
export const SHOWN_SCALE = 0.01;

/** The block's markdown. */
export function retrySchedule(): string {
  return [
    `- **Attempts:** ${MAX_ATTEMPTS}, the first and one after each delay; then the delivery is dead-lettered.`,
    `- **Delays:** ${retryScheduleText()}; each drawn from its value to ${JITTER * 100} % more, never less.`,
    `- **Horizon:** ${HORIZON_SECONDS.toLocaleString('en-US')} s (${durationText(HORIZON_SECONDS)}) after the first attempt: no delivery is given up sooner.`,
    `- **Locally at \`${WEBHOOK_ENVIRONMENT.retryScale}=${SHOWN_SCALE}\`:** ${retryScheduleText(SHOWN_SCALE)}.`,
  ].join('\n');
}
