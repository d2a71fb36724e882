/**
 * What one request costs each function on the request path, measured on the real handlers in
 * process against the local engine: the handler's time (warm), the bytes it logs (its JSON line
 * and the EMF metrics, as Lambda would ship them to CloudWatch Logs) and the DynamoDB capacity
 * it consumes (the engine's own `ConsumedCapacity`, asked for on every call). docs/capacity.md
 * reads these figures; the deployed figures that only AWS has (the round trip to DynamoDB in
 * region, Lambda's own log lines) are said there as such.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { makeAuthorizerHandler } from '../../../lambda/authorizer/handler';
import { makeDocumentClient } from '../../../lambda/aws/dynamodb';
import { PLANTS_TABLE } from '../../../lambda/aws/tables';
import { ALL_SCOPES, generateToken, tokenItem } from '../../../lambda/tokens/token';
import { TOKENS_TABLE, TokensTable } from '../../../lambda/tokens/table';
import { join, dirname } from 'node:path';
import { PROJECT_ROOT } from '../../definitions/bundling';
import { FUNCTION_NAMES, FUNCTIONS, type FunctionName } from '../../definitions/functions';
import { startEngine } from '../../npm-start/in-process';
import { measuredHere } from '../measurements';
import { plantUse, refusal } from '../plant-use';
import { firstEvent } from './events';
import { median, recordFigures } from './measure';
import type { BenchContext, BenchPhase } from './phase';

/** The figures of one function, per invocation. */
export interface RequestCost {
  readonly name: FunctionName;
  /** Median warm handler time, ms (this machine, local engine). */
  readonly medianMs: number;
  /** Bytes written to stdout and stderr per invocation (median). */
  readonly bytesLogged: number;
  /** Log lines per invocation (median). */
  readonly linesLogged: number;
  /** DynamoDB capacity units consumed per invocation (median), as the engine counts them. */
  readonly capacityUnits: number;
}

/**
 * Asks every DynamoDB call for its consumed capacity and adds it to `counter.units`. The engine
 * (dynalite) counts a strongly consistent `Scan` as if it were eventually consistent (half a unit
 * per 4 KB); DynamoDB bills it a whole unit per 4 KB, as it does a strongly consistent `GetItem`
 * (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/read-write-operations.html),
 * so that one figure is doubled here.
 */
function countCapacity(client: DynamoDBDocumentClient, counter: { units: number }): void {
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const input = args.input as Record<string, unknown>;
      input.ReturnConsumedCapacity = 'TOTAL';
      const result = await next(args);
      const consumed = (result.output as { ConsumedCapacity?: unknown }).ConsumedCapacity;
      const factor = context.commandName === 'ScanCommand' && input.ConsistentRead === true ? 2 : 1;
      for (const each of [consumed].flat() as { CapacityUnits?: number }[]) {
        counter.units += (each?.CapacityUnits ?? 0) * factor;
      }
      return result;
    },
    { step: 'initialize', name: 'benchConsumedCapacity' },
  );
}

/** Calls `run` with stdout and stderr captured; returns its result and what it wrote. */
async function captured<T>(run: () => Promise<T>): Promise<{ result: T; text: string }> {
  let text = '';
  const writes = [process.stdout.write, process.stderr.write];
  const capture = (chunk: string | Uint8Array) => {
    text += typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
    return true;
  };
  process.stdout.write = capture as typeof process.stdout.write;
  process.stderr.write = capture as typeof process.stderr.write;
  try {
    return { result: await run(), text };
  } finally {
    [process.stdout.write, process.stderr.write] = writes as [
      typeof process.stdout.write,
      typeof process.stderr.write,
    ];
  }
}

/** Measures `rounds` rounds of authorize, create, get, list (a page of 20) and delete. */
export async function measureRequestCosts(rounds: number): Promise<RequestCost[]> {
  const engine = await startEngine();
  const counter = { units: 0 };
  const client = makeDocumentClient(engine.clientConfig);
  countCapacity(client, counter);
  const { token, tokenId } = generateToken();
  await new TokensTable(client, TOKENS_TABLE.localName).put(
    tokenItem(token, tokenId, { name: 'bench', scopes: ALL_SCOPES }),
  );
  const plants = { plants: client, tableName: PLANTS_TABLE.localName };
  const handlers: Record<string, (event: never) => Promise<unknown>> = {
    authorizer: makeAuthorizerHandler({ tokens: client, tableName: TOKENS_TABLE.localName }),
    ...(await operationHandlers(plants)),
  };
  // Each round sends every operation to one plant: its create first, its deletes last, so the
  // others find it (../plant-use.ts).
  const order = (name: FunctionName) => {
    const use = FUNCTIONS[name].operation ? plantUse(name) : 'creates';
    return use === 'creates' ? 0 : use === 'deletes' ? 2 : 1;
  };
  // An operation whose request cannot be derived is left out; the phase names it.
  const names = (Object.keys(handlers) as FunctionName[])
    .filter((name) => !FUNCTIONS[name].operation || refusal(name) === undefined)
    .sort((a, b) => order(a) - order(b));
  const samples = new Map(
    names.map((name) => [
      name,
      { ms: [] as number[], bytes: [] as number[], lines: [] as number[], units: [] as number[] },
    ]),
  );
  let id = 3_000_000_000_000_000;
  const invoke = async (name: FunctionName, plantId: number, record: boolean) => {
    const event = firstEvent(name, token, String(plantId), { name: 'Monstera deliciosa' }) as never;
    counter.units = 0;
    const { result, text } = await captured(async () => {
      const started = performance.now();
      const answer = (await handlers[name]!(event)) as {
        statusCode?: number;
        isAuthorized?: boolean;
      };
      return { answer, ms: performance.now() - started };
    });
    const ok = result.answer.isAuthorized === true || (result.answer.statusCode ?? 0) < 300;
    if (!ok) throw new Error(`${name} answered ${JSON.stringify(result.answer).slice(0, 200)}`);
    if (!record) return;
    const sample = samples.get(name)!;
    sample.ms.push(result.ms);
    sample.bytes.push(Buffer.byteLength(text));
    sample.lines.push(text.split('\n').filter(Boolean).length);
    sample.units.push(counter.units);
  };
  try {
    // A page of the list reads 20 plants, as the default page does on a table that has them.
    for (let i = 0; i < 20; i++) await invoke('create-plant', id++, false);
    for (let round = -20; round < rounds; round++) {
      const plantId = id++;
      for (const name of names) await invoke(name, plantId, round >= 0);
    }
  } finally {
    client.destroy();
    await engine.close();
  }
  return names.map((name) => {
    const s = samples.get(name)!;
    return {
      name,
      medianMs: median(s.ms),
      bytesLogged: median(s.bytes),
      linesLogged: median(s.lines),
      capacityUnits: median(s.units),
    };
  });
}

/**
 * Every operation's handler from the registry, in its order (each round creates its plant
 * first and deletes it last), built by the one factory its folder's `handler.ts` exports over
 * the plants table: an operation added to the registry is measured with no edit here.
 */
async function operationHandlers(
  plants: Record<string, unknown>,
): Promise<Record<string, (event: never) => Promise<unknown>>> {
  const built = await Promise.all(
    FUNCTION_NAMES.filter((name) => FUNCTIONS[name].operation).map(async (name) => {
      const module = (await import(
        join(PROJECT_ROOT, dirname(FUNCTIONS[name].entry), 'handler')
      )) as Record<string, unknown>;
      const factories = Object.values(module).filter((value) => typeof value === 'function');
      if (factories.length !== 1) {
        throw new Error(
          `${name}'s handler.ts must export one handler factory, not ${factories.length}`,
        );
      }
      const make = factories[0] as (deps: unknown) => (event: never) => Promise<unknown>;
      return [name, make(plants)] as const;
    }),
  );
  return Object.fromEntries(built);
}

/** The figures as `npm run bench` prints them, and the operations it could not measure. */
export function formatRequestCosts(costs: readonly RequestCost[], rounds: number): string {
  const refused = FUNCTION_NAMES.filter((name) => FUNCTIONS[name].operation).flatMap((name) => {
    const why = refusal(name);
    return why ? [`  not measured: ${why}`] : [];
  });
  return [
    `Per request, warm, in process against the local engine (${rounds} rounds, medians; Lambda's own platform lines not included):`,
    ...costs.map(
      (c) =>
        `  ${c.name.padEnd(13)} handler ${c.medianMs.toFixed(2)} ms; logs ${c.bytesLogged} bytes in ${c.linesLogged} lines; DynamoDB ${c.capacityUnits} capacity units`,
    ),
    ...refused,
  ].join('\n');
}

/** The `request` phase of `npm run bench`. */
export const perRequest: BenchPhase = {
  name: 'request',
  description: 'per request and function: warm handler time, bytes logged, DynamoDB capacity units',
  records: 'request',
  async run({ requests, print, fail, writeMeasurements }: BenchContext) {
    const rounds = Math.min(requests, 1000);
    const costs = await measureRequestCosts(rounds);
    print(`${formatRequestCosts(costs, rounds)}\n`);
    recordFigures({ writeMeasurements, print, fail }, 'request', () => ({
      ...measuredHere(`npm run bench -- --phases request --requests ${rounds}`),
      functions: Object.fromEntries(
        costs.map((c) => [
          c.name,
          { ms: Number(c.medianMs.toFixed(2)), bytesLogged: c.bytesLogged, units: c.capacityUnits },
        ]),
      ),
    }));
  },
};
