/**
 * Every setting a user gives, defined once: `npm start`'s (and `npm run db`'s) environment
 * variables and flags, the CDK app's `-c` context keys, and the environment variables of the
 * other commands. The code reads its names and defaults from here (`lib/local/process/`,
 * `lib/infra/app.ts`, the commands' help), and docs/reference/settings.md is generated from it.
 */
import { API, STAGE_THROTTLE } from './api';
import { retryScheduleText } from './webhooks';

/** One setting: its default (none: absent unless given) and what it means, in a phrase. */
export interface Setting {
  /** @default - none: the setting is absent unless given */
  readonly default?: string | number;
  /** A phrase, lower case, no final stop: what the setting does. */
  readonly meaning: string;
}

/** One flag of a command line: a switch, or an option that takes a value (`N`). */
export interface Flag extends Setting {
  readonly value?: string;
}

/**
 * Requests the local gateway handles at once, and so the sandboxes per function that may run at
 * once by default: a burst meets the gateway's 429 before a throttled invocation's 500.
 */
export const LOCAL_REQUESTS_IN_FLIGHT = 64;

/** `npm start`'s environment variables (`npm run db` reads the engine's and the data's). */
export const LOCAL_ENVIRONMENT = {
  PORT: { default: 3000, meaning: 'HTTP port on 127.0.0.1; 0 picks a free one' },
  PLANT_STORE_DB_PORT: { default: 8000, meaning: 'engine port on 127.0.0.1; 0 picks a free one' },
  PLANT_STORE_CONSOLE_PORT: {
    default: 0,
    meaning: "the console's port on 127.0.0.1; 0 picks a free one (npm start prints its URL)",
  },
  PLANT_STORE_DATA_DIR: {
    default: '.plant-store',
    meaning: 'where the data, the bundles and the dev token live',
  },
  PLANT_STORE_DEV_TOKEN: {
    default: 'one kept in the data directory',
    meaning: 'a pst_ token to make valid with every scope',
  },
  PLANT_STORE_AUTH_CACHE_TTL: {
    default: API.authorizer.defaultCacheTtlSeconds,
    meaning: 'seconds an authorizer decision is cached; 0 turns the cache off',
  },
  PLANT_STORE_CONCURRENCY: {
    default: LOCAL_REQUESTS_IN_FLIGHT,
    meaning: 'sandboxes per function that may run at once; more invocations are throttled',
  },
  PLANT_STORE_SANDBOX_IDLE_SECONDS: {
    default: 300,
    meaning: 'seconds an idle sandbox lives; the next request starts a new one (INIT_START)',
  },
  PLANT_STORE_INSPECT_PORT: {
    default: 9229,
    meaning: "the first function's inspector port with --inspect (the others follow)",
  },
  PLANT_STORE_SHOW_METRICS: { default: 'hidden', meaning: "1 shows the functions' metric lines" },
  PLANT_STORE_WEBHOOK_RETRY_SCALE: {
    default: 1,
    meaning: `multiplies the webhook's retry delays, above 0 and at most 1 (0.01: ${retryScheduleText(0.01)})`,
  },
} as const satisfies Record<string, Setting>;

/** The name of one of `npm start`'s environment variables. */
export type LocalVariable = keyof typeof LOCAL_ENVIRONMENT;

/** `npm start`'s flags (after `--`: `npm start -- --memory`). */
export const START_FLAGS = {
  '--memory': { default: 'in $PLANT_STORE_DATA_DIR/db', meaning: 'tables in memory, gone on exit' },
  '--no-watch': {
    default:
      'a saved change under lambda/ is served by new sandboxes; one to lib/definitions/api.ts restarts the gateway',
    meaning: 'do not rebuild on change',
  },
  '--inspect': {
    meaning:
      'one sandbox per function, each under the inspector on its own port (from $PLANT_STORE_INSPECT_PORT up), with source maps and no timeouts; attach VS Code with .vscode/launch.json',
  },
  '--throttle': {
    meaning: `answer 429 past the stage throttle, a token bucket as deployed (${STAGE_THROTTLE.rateLimit} requests/s, burst ${STAGE_THROTTLE.burstLimit})`,
  },
  '--throttle-rate': {
    value: 'N',
    default: STAGE_THROTTLE.rateLimit,
    meaning: 'requests per second the bucket refills; implies --throttle',
  },
  '--throttle-burst': {
    value: 'N',
    default: STAGE_THROTTLE.burstLimit,
    meaning: "the bucket's size; implies --throttle",
  },
} as const satisfies Record<string, Flag>;

/** The CDK app's context keys (`npm run deploy -- -c stage=prod`). */
export const CDK_CONTEXT = {
  stage: {
    default: 'the unstaged PlantStore stack',
    meaning:
      'the stage, dev or prod (lib/infra/stages.ts): its stack name, bootstrap qualifier, tag and settings',
  },
  capacity: {
    meaning:
      'a capacity preset, 1k, 10k or 100k (lib/infra/stages.ts): reserved concurrency, throttle and alarms sized for it',
  },
  alarmEmail: { default: 'no subscription', meaning: 'an address the alarms email' },
  logLevel: { default: 'INFO', meaning: "the functions' application log level, e.g. DEBUG" },
  tracing: { default: 'off', meaning: 'true turns X-Ray tracing on' },
  webhookStaticIps: {
    default: 'off',
    meaning: 'true sends webhooks from static IP addresses, through a NAT gateway',
  },
  githubRepository: {
    meaning:
      "<owner>/<name> (or <owner>@<ownerId>/<name>@<repositoryId>): adds GitHub's OIDC provider and each stage's deploy access stack",
  },
  githubOwnerId: { meaning: "the repository owner's numeric id, with githubRepository" },
  githubRepositoryId: { meaning: "the repository's numeric id, with githubRepository" },
  sharedAccount: {
    default: 'off',
    meaning:
      "true lets one account hold both stages' deploy access stacks (they are refused there otherwise: one account per stage)",
  },
  dynamoDbEndpoint: {
    meaning: 'a DynamoDB endpoint the functions call, for a sam local template',
  },
  lambdaArch: {
    default: 'arm64',
    meaning:
      "host, x86_64 or arm64: the functions' architecture in a sam local template, with dynamoDbEndpoint",
  },
} as const satisfies Record<string, Setting>;

/** The name of one of the CDK app's context keys. */
export type ContextKey = keyof typeof CDK_CONTEXT;

/** The other commands' environment variables. */
export const COMMAND_ENVIRONMENT = {
  PLANT_STORE_TOKEN: {
    default: "npm start's dev token, for npm start's URL",
    meaning: "npm run smoke's, npm run verify's and npm run load's bearer token",
  },
  PLANT_STORE_WRITE_ONLY_TOKEN: {
    meaning:
      "npm run verify's token with plants:write alone, for what such a token is answered; its checks are skipped without it",
  },
  PLANT_STORE_SLS_DIR: {
    meaning:
      "where serverless and serverless-offline are installed, for npm run bench's offline phase; the phase is skipped without it",
  },
  PLANT_STORE_WEBHOOK_SECRET: {
    meaning:
      'the whsec_ secret npm run webhook -- listen verifies signatures with; listen needs it',
  },
} as const satisfies Record<string, Setting>;
