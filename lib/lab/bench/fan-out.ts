/**
 * How many stream records a second one shard's fan-out drains: the fan-out bundle as deployed, in
 * a fresh process of Lambda's Node, handed batches of 100 INSERT records one after another (one
 * invocation of a shard at a time, Lambda's ParallelizationFactor 1), against the local engine's
 * subscriptions table and the local SQS answering each call 10 ms after it arrived (a Region's
 * round trip). Each figure is checked: the queue must hold every delivery once, and the SQS
 * calls are counted (ten deliveries a call).
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { makeDocumentClient } from '../../../lambda/aws/dynamodb';
import { SUBSCRIPTIONS_TABLE } from '../../../lambda/aws/tables';
import { parseDeliveryMessage } from '../../../lambda/webhook/message';
import { newSubscriberId, SubscriptionsTable } from '../../../lambda/webhook/subscriptions-table';
import { buildFunctions } from '../../definitions/build';
import { tableEnvironment } from '../../definitions/functions';
import { STREAM_SOURCE } from '../../definitions/webhooks';
import {
  LOCAL_QUEUE_NAMES,
  LocalQueue,
  localQueueArn,
  localQueueUrl,
  localWebhookEnvironment,
  serveSqs,
  SQS_TARGET_PREFIX,
  startEngine,
} from '../../npm-start/in-process';
import { measuredHere } from '../measurements';
import { childEnvironment, recordFigures } from './measure';
import type { BenchPhase } from './phase';

/** The latency the local SQS gives every call, ms. */
export const SQS_CALL_MS = 10;
/** The subscriber counts measured. */
const SUBSCRIBER_COUNTS = [1, 10] as const;

// Run in the child: one warm-up batch (cold start, the subscribers' scan), then `batches` timed.
const DRIVER = `
const [url, batches, size] = process.argv.slice(1).map((a, i) => (i ? Number(a) : a));
const { handler } = await import(url);
let next = 0;
const batch = () => ({ Records: Array.from({ length: size }, () => {
  const id = String(++next);
  return { eventID: 'e' + id, eventName: 'INSERT', eventSource: 'aws:dynamodb', dynamodb: {
    SequenceNumber: id.padStart(21, '0'), Keys: { id: { N: id } },
    NewImage: { id: { N: id }, name: { S: 'bench ' + id }, createdAt: { S: new Date().toISOString() } } } };
}) });
const context = { awsRequestId: 'bench', getRemainingTimeInMillis: () => 30_000 };
const check = (answer) => { if (answer.batchItemFailures.length) throw new Error(JSON.stringify(answer)); };
check(await handler(batch(), context));
const cpu = process.cpuUsage();
const started = performance.now();
for (let n = 0; n < batches; n++) check(await handler(batch(), context));
const ms = performance.now() - started;
const used = process.cpuUsage(cpu);
process.stderr.write('\\nRESULT ' + JSON.stringify({ ms, cpuMs: (used.user + used.system) / 1000 }) + '\\n');
`;

/** Runs the driver in a fresh process; its timed batches' wall and CPU time. */
function drive(
  node: string,
  bundle: string,
  env: Record<string, string>,
  batches: number,
): Promise<{ ms: number; cpuMs: number }> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      node,
      [
        '--input-type=module',
        '-e',
        DRIVER,
        pathToFileURL(bundle).href,
        String(batches),
        String(STREAM_SOURCE.batchSize),
      ],
      { env, stdio: ['ignore', 'ignore', 'pipe'] },
    );
    let stderr = '';
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('error', reject);
    child.once('close', (code) => {
      const result = /RESULT (\{.*\})/.exec(stderr)?.[1];
      if (code === 0 && result) resolve(JSON.parse(result));
      else reject(new Error(`the fan-out driver exited with ${code}: ${stderr.slice(-800)}`));
    });
  });
}

/** The `fan-out` phase of `npm run bench`. */
export const fanOutThroughput: BenchPhase = {
  name: 'fan-out',
  description: `records a second one shard's fan-out drains at 1 and 10 subscribers, ${SQS_CALL_MS} ms per SQS call`,
  records: 'fanOut',
  async run({ dir, lambdaNode, print, fail, requests, writeMeasurements }) {
    const [built] = await buildFunctions(join(dir, 'fan-out'), ['fan-out']);
    let calls = 0;
    let queues: LocalQueue[] = [];
    const engine = await startEngine({
      intercept: (req, res) => {
        if (!String(req.headers['x-amz-target'] ?? '').startsWith(SQS_TARGET_PREFIX)) return false;
        serveSqs(req, res, queues, { latencyMs: SQS_CALL_MS, call: () => void calls++ });
        return true;
      },
    });
    const client = DynamoDBDocumentClient.from(makeDocumentClient(engine.clientConfig));
    const subscriptions = new SubscriptionsTable(client, SUBSCRIPTIONS_TABLE.localName);
    const env = childEnvironment({
      ...tableEnvironment('fan-out', (_key, table) => table.localName),
      ...localWebhookEnvironment('fan-out', engine.endpoint),
      AWS_ENDPOINT_URL_DYNAMODB: engine.endpoint,
      AWS_LAMBDA_FUNCTION_NAME: 'fan-out',
      // A session of the fan-out's role, as npm start gives its sandbox: the engine checks it.
      ...engine.account.sandboxCredentials('fan-out'),
    });
    // At least 20 timed batches of 100, however few requests were asked for.
    const batches = Math.max(20, Math.ceil(requests / STREAM_SOURCE.batchSize));
    print(
      `Fan-out, one shard (${batches} batches of ${STREAM_SOURCE.batchSize} records, one at a time; ${SQS_CALL_MS} ms per SQS call; the bundle on Node ${lambdaNode.major}):`,
    );
    let added = 0;
    /** CPU per SendMessageBatch at the last subscriber count, ms. */
    let cpuMsPerCall = 0;
    try {
      for (const count of SUBSCRIBER_COUNTS) {
        for (; added < count; added++) {
          const subscriberId = newSubscriberId();
          await subscriptions.add({
            subscriberId,
            url: `https://${subscriberId}.example/`,
            name: `bench ${added}`,
            createdAt: new Date().toISOString(),
            secret: 'not opened by the fan-out',
          });
        }
        const deliveries = new LocalQueue({
          name: LOCAL_QUEUE_NAMES.deliveries,
          url: localQueueUrl(engine.endpoint, LOCAL_QUEUE_NAMES.deliveries),
          arn: localQueueArn(LOCAL_QUEUE_NAMES.deliveries),
          visibilityTimeoutSeconds: 60,
        });
        queues = [deliveries];
        calls = 0;
        const { ms, cpuMs } = await drive(lambdaNode.path, built!.file, env, batches);
        const records = batches * STREAM_SOURCE.batchSize;
        // Every delivery of the warm-up batch and the timed ones, each once.
        const held = deliveries.receive(Number.MAX_SAFE_INTEGER);
        const ids = new Set(held.map((m) => parseDeliveryMessage(m.body)?.webhookId));
        const expected = (records + STREAM_SOURCE.batchSize) * count;
        if (held.length !== expected || ids.size !== expected) {
          throw new Error(`the queue holds ${held.length} (${ids.size} distinct), not ${expected}`);
        }
        deliveries.close();
        cpuMsPerCall = cpuMs / (calls - calls / (batches + 1));
        print(
          `fan-out: ${Math.round((records / ms) * 1000)} records/s at ${count} subscribers ` +
            `(${(calls / (batches + 1)).toFixed(0)} SQS calls a batch of ${STREAM_SOURCE.batchSize}; ` +
            `${(ms / batches).toFixed(1)} ms and ${(cpuMs / batches).toFixed(1)} ms of CPU a batch)`,
        );
      }
    } finally {
      client.destroy();
      await engine.close();
    }
    print();
    recordFigures({ writeMeasurements, print, fail }, 'fanOut', () => ({
      ...measuredHere(`npm run bench -- --phases fan-out --requests ${requests}`, lambdaNode.path),
      cpuMsPerCall: Number(cpuMsPerCall.toFixed(3)),
    }));
  },
};
