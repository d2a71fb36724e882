/**
 * The `retry-schedule` block: the webhook's retry delays as one short list and the horizon, from
 * the schedule the deliver function runs (`lambda/webhook/schedule.ts`), deployed and locally at
 * `PLANT_STORE_WEBHOOK_RETRY_SCALE=0.01`.
 */
import { WEBHOOK_ENVIRONMENT } from '../../../lambda/webhook/config';
import {
  HORIZON_SECONDS,
  JITTER,
  MAX_ATTEMPTS,
  RETRY_DELAYS_SECONDS,
} from '../../../lambda/webhook/schedule';

/** The scale the block shows beside the deployed schedule. */
export const SHOWN_SCALE = 0.01;

/** A duration as the docs write it: `50 ms`, `5 s`, `1 min 12 s`, `10 h`, `77 h 35 min 5 s`. */
export function duration(seconds: number): string {
  if (seconds < 1) return `${Math.round(seconds * 1000)} ms`;
  let rest = Math.round(seconds);
  const parts: string[] = [];
  for (const [unit, size] of [
    ['h', 3600],
    ['min', 60],
    ['s', 1],
  ] as const) {
    if (rest >= size) parts.push(`${Math.floor(rest / size)} ${unit}`);
    rest %= size;
  }
  return parts.join(' ');
}

/** The delays in order, a run of equal ones as one `10 h × 7`. */
function delays(scale: number): string {
  const runs: { seconds: number; count: number }[] = [];
  for (const seconds of RETRY_DELAYS_SECONDS) {
    const last = runs.at(-1);
    if (last?.seconds === seconds) last.count += 1;
    else runs.push({ seconds, count: 1 });
  }
  return runs
    .map(({ seconds, count }) => duration(seconds * scale) + (count > 1 ? ` × ${count}` : ''))
    .join(', ');
}

/** The block's markdown. */
export function retrySchedule(): string {
  const horizon = (scale: number) =>
    `${(HORIZON_SECONDS * scale).toLocaleString('en-US')} s (${duration(HORIZON_SECONDS * scale)})`;
  return [
    `- **Attempts:** ${MAX_ATTEMPTS}, the first and one after each delay; then the delivery is dead-lettered.`,
    `- **Delays:** ${delays(1)}; each drawn from its value to ${JITTER * 100} % more.`,
    `- **Horizon:** ${horizon(1)} after the first attempt: no delivery is given up sooner.`,
    `- **Locally at \`${WEBHOOK_ENVIRONMENT.retryScale}=${SHOWN_SCALE}\`:** ${delays(SHOWN_SCALE)}; horizon ${horizon(SHOWN_SCALE)}.`,
  ].join('\n');
}
