/**
 * docs/capacity.md's prose repeats some of the model's figures where an operator reads a plan
 * (the account concurrency to ask for at 10k and 100k, what it leaves, its parts and its margin).
 * The tables are compared with `npm run capacity` by `capacity.test.ts`; this holds the prose to
 * the same model, so that a change of the model that regenerates the tables cannot leave the
 * sentences beside them stale. Each sentence is written here from the model's figures and must be
 * found, whitespace aside, outside the generated block.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { n } from '../../../lib/generators/capacity/format';
import { LEVELS, QUOTAS } from '../../../lib/generators/capacity/inputs';
import { creates, model } from '../../../lib/generators/capacity/model';
import { MARKERS, raisingNeeds } from '../../../lib/generators/capacity/tables';

const DOC = readFileSync(join(__dirname, '../../../docs/capacity.md'), 'utf8');
const oneLine = (text: string) => text.replace(/\s+/g, ' ');
/** The page without its generated tables: what a person wrote. */
const PROSE = oneLine(
  DOC.slice(0, DOC.indexOf(MARKERS.begin)) +
    DOC.slice(DOC.indexOf(MARKERS.end) + MARKERS.end.length),
);

const NEEDS = raisingNeeds();

/** The figures of one level, as the raising table and the pool table print them. */
function level(rate: (typeof LEVELS)[number]) {
  const { pool, webhook } = model(creates(rate));
  const needs = Math.ceil(NEEDS[LEVELS.indexOf(rate)]!.lambdaConcurrency);
  const raised = Math.max(QUOTAS.lambdaConcurrency.value, needs);
  return {
    pool,
    shards: webhook.shards,
    // The prose gives the pool's fan-out as its invocations, and its concurrency as those ÷ 10.
    fanOutInvocations: pool.fanOut * QUOTAS.lambdaRequestsPerConcurrency.value,
    needs: n(needs),
    raised: n(raised),
    left: n(raised - pool.reserved),
    account: n(pool.rules.account),
    concurrency: n(pool.rules.concurrency),
    margin: n(raised - pool.rules.account),
  };
}
const TEN_K = level(10_000);
/** The lowest level, as the webhook's prose describes it. */
const LOW = model(creates(100));
const words: Record<number, string> = { 1: 'one', 2: 'two', 3: 'three', 4: 'four' };
const HUNDRED_K = level(100_000);

it.each([
  [
    'the figure asked for',
    `${TEN_K.raised} at 10,000 creates a second, ${HUNDRED_K.raised} at 100,000`,
  ],
  ['its margin', `a margin of ${TEN_K.margin} and ${HUNDRED_K.margin} beyond the account rule`],
  ['what it leaves', `It leaves ${TEN_K.left} and ${HUNDRED_K.left} to the other functions`],
  [
    'the per-function rule',
    `the reservations + the throttle ÷ 10, ${n(TEN_K.pool.rules.perFunction)} at 10,000 creates a second and ${n(HUNDRED_K.pool.rules.perFunction)} at 100,000`,
  ],
  [
    'the parts',
    `tokens, the cost table's assumption: ${n(TEN_K.pool.authorizer, 2)}), **the webhook functions at the throttle's writes** (the fan-out on ${n(TEN_K.shards)} and ${n(HUNDRED_K.shards)} shards, ${n(TEN_K.fanOutInvocations)} and ${n(HUNDRED_K.fanOutInvocations)} invocations a second, ${n(TEN_K.pool.fanOut)} and ${n(HUNDRED_K.pool.fanOut)} of concurrency by its invocations ÷ 10; the deliverer at what its mapping would need, ${n(TEN_K.pool.deliver)} and ${n(HUNDRED_K.pool.deliver)}:`,
  ],
  ['the account rule', `${TEN_K.account} and ${HUNDRED_K.account}, the rule that binds`],
  [
    'a batch at 100 creates a second',
    `(about ${n(LOW.webhook.recordsPerBatch)} at 100 creates a second on ${words[LOW.webhook.shards]} shards)`,
  ],
  [
    'the SQS requests of a delivery at 100 creates a second',
    `${n(LOW.webhook.sqsRequests / LOW.webhook.deliveries, 2)} at 100 creates a second.`,
  ],
  ['the 1k level, on a new account', `it needs ${level(1_000).needs} of the usual 1,000`],
  ['the concurrency rule', `${TEN_K.concurrency} and ${HUNDRED_K.concurrency})`],
  [
    'the 10k plan',
    `concurrency (L-B99A9384) to ${TEN_K.raised} before deploying the preset (the reservation, ` +
      `a pool of ${TEN_K.left} for every other function: ${n(TEN_K.pool.routes)} for reads and ` +
      `changes at the throttle, ${n(TEN_K.pool.fanOut + TEN_K.pool.deliver + TEN_K.pool.authorizer)} ` +
      `for the webhook and the authorizer, Lambda's ${n(TEN_K.pool.floor)}; ${TEN_K.margin} over ` +
      `the ${TEN_K.account} the account's request rate needs`,
  ],
  [
    'the 100k plan',
    `to ${HUNDRED_K.raised} (the ${n(HUNDRED_K.pool.reserved)} reserved for create-plant, and ` +
      `${HUNDRED_K.left} for every other function: ${n(HUNDRED_K.pool.routes)} for reads and ` +
      `changes at the throttle, ${n(HUNDRED_K.pool.fanOut)} for the fan-out with its polls split, ` +
      `${n(HUNDRED_K.pool.deliver)} for the deliverer raised as below, the authorizer's ` +
      `${n(HUNDRED_K.pool.authorizer, 2)}, Lambda's ${n(HUNDRED_K.pool.floor)}; ` +
      `${HUNDRED_K.margin} over the ${HUNDRED_K.account} the account's request rate needs`,
  ],
])('the prose gives %s as the model does', (_, sentence) => {
  expect(PROSE).toContain(sentence);
});
