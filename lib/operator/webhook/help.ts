/** `npm run webhook -- --help`, and the defaults it names. */
import { SUBSCRIBERS_FRESH_SECONDS } from '../../../lambda/webhook/config';
import {
  DEFAULT_RATE_PER_SECOND,
  RATE_LIMITS,
  sustainedRate,
} from '../../../lambda/webhook/rate-limit';
import { PLANT_EVENTS } from '../../../lambda/webhook/events';
import { findingNpmStart } from '../../npm-start/find';
import type { COMMAND_ENVIRONMENT } from '../../definitions/settings';
import { TEST_WEBHOOK_ID_PREFIX } from './queues';

/** `listen`'s default port. */
export const DEFAULT_LISTEN_PORT = 4000;

/** The environment variable `listen` reads the secret from. */
export const SECRET_VARIABLE: keyof typeof COMMAND_ENVIRONMENT = 'PLANT_STORE_WEBHOOK_SECRET';

export const WEBHOOK_HELP = `Usage: npm run webhook -- <command> [options]

Commands:
  add --url <url> [--name <label>] [--id sub_<id>] [--rate <per second>]
      [--events <names>] [--show-urls]
                       Subscribe a receiver (to newPlant unless --events). Prints
                       its whsec_ secret alone on stdout (shown this once), its
                       subscriber id and URL on stderr (scheme and host, the path as
                       /…, unless --show-urls). Deployed, the URL must be https to a
                       public address; locally http is fine. --id (local only) picks
                       the id, e.g. the one events/deliver.json names.
                       --rate: requests it receives at most in any second, ${RATE_LIMITS.min}
                       to ${RATE_LIMITS.max} (default ${DEFAULT_RATE_PER_SECOND}); they start 1.25 / rate s apart,
                       so a backlog reaches it at 80 % of the rate (${sustainedRate(DEFAULT_RATE_PER_SECOND)} a second
                       by default, ${sustainedRate(RATE_LIMITS.max)} at the most).
                       --events: a comma-separated list of
                       ${PLANT_EVENTS.join(', ')} (default newPlant
                       alone, whose body is the plant as always; a subscriber of
                       more gets bodies with type, createdAt and version).
                       With --aws it prints them at once, then returns after
                       ${SUBSCRIBERS_FRESH_SECONDS + 1} s, once every fan-out reads the subscriber.
  update <subscriberId> [--rate <per second>] [--events <names>]
                       Change a subscriber's rate (deliveries over it wait, spending no
                       attempt) or the events it receives from now on (as add's).
  list [--show-urls]   A header row, then one line per subscriber: subscriberId, name, url
                       (scheme and host, its path and query as /…: they may be a credential;
                       whole with --show-urls), created, rotationEnds (empty unless a rotation
                       overlaps), rate, state (active, or disabled since <time>: <reason>),
                       its failed attempts in a row and its events (tab-separated). Never
                       a secret.
  attempts <subscriberId>
                       Its latest attempts, newest first: time, webhookId, attempt, ms, status
                       or failure (the last 20 are kept on the subscriber).
  enable <subscriberId>
                       Turn a disabled subscriber (410 Gone, or 5 days of failures) back on
                       and deliver it every plant stored meanwhile, with the webhook-ids
                       they would have had; a replay that stopped is resumed by running it
                       again. Deployed, it needs --plants-table and --queue as replay does.
  remove <subscriberId>
                       Unsubscribe. An unknown id is exit code 1.
  rotate <subscriberId>
                       A new secret, printed alone on stdout (shown this once). For 24 h
                       every attempt is signed with both (webhook-signature: v1,<new>
                       v1,<old>), then with the new one only; list shows when.
  replay --since <ISO time> [--until <ISO time>] [--subscriber <subscriberId>]
                       Queue again what the plants table holds of what was written since
                       then: each plant created since, as newPlant (its members as they are
                       now), and each plant changed since, as plantUpdated at its current
                       version (the versions between and deleted plants are gone), to each
                       subscriber registered by then that chose the event (or to one), with
                       the webhook-id its first delivery had: receivers deduplicate. Run it
                       after a stream-failure alarm or when a receiver lost data.
  test <subscriberId>  Queue one signed example delivery for that subscriber: the example
                       NewPlant (${'{'}"id":9007199254740993,...}, a plant that was not stored)
                       under a webhook-id starting ${TEST_WEBHOOK_ID_PREFIX}, which is signed like any
                       other, so a receiver can tell a test. Delivered, retried and
                       dead-lettered like any delivery.
  dead-letters [--redrive [<webhookId>]]
                       A header row, then the deliveries given up after the last attempt
                       (webhookId, subscriberId, plantId, deadSince); --redrive queues them
                       all again, --redrive <webhookId> only that one.
  listen [--port <p>] [--forward-to <url>]
                       A local receiver on 127.0.0.1 (default port ${DEFAULT_LISTEN_PORT}) that verifies each
                       signature and prints each delivery: webhook-id, attempt, body. The
                       secret comes from $${SECRET_VARIABLE} only (an argument would show in
                       ps). --forward-to sends each verified delivery on, the same bytes with
                       its content type and webhook-* headers only, prints the receiver's
                       answer and answers with its status and Retry-After (a delivery that
                       fails to verify is not sent).

Exit codes: 0 done, 1 failed or not found, 2 a usage mistake.

Target (default: ${findingNpmStart('engine', '  ')}):
  --aws --table <SubscriptionsTableName> [--region <r>]
                       The deployed subscriptions table (a stack output); secrets are
                       encrypted with the KMS key alias/<SubscriptionsTableName>.
  --aws --queue <DeadLetterQueueUrl>
                       The deployed dead-letter queue (a stack output), for dead-letters
                       and test (which queues on the delivery queue behind it).
  --aws --table <SubscriptionsTableName> --plants-table <PlantsTableName>
        --queue <DeliveryQueueUrl>
                       For replay: the deployed tables and delivery queue (stack outputs).
  --help               This text.
`;
