/**
 * What create-plant's handler costs next to the write it wraps, warm and in process: the handler
 * (authorizer context, content type, strict JSON, validation, the answer) against the same
 * conditional `PutItem` sent directly, on the same client and the same engine, alternately.
 */
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  makeCreatePlantHandler,
  type CreatePlantEvent,
} from '../../../lambda/create-plant/handler';
import { makeDocumentClient } from '../../../lambda/aws/dynamodb';
import { PLANTS_WRITE } from '../../../lambda/tokens/principal';
import { PLANTS_TABLE } from '../../../lambda/aws/tables';
import { PROJECT_ROOT } from '../../definitions/bundling';
import { startEngine } from '../../npm-start/in-process';
import { median } from './measure';
import type { BenchContext, BenchPhase } from './phase';

/** The handler ÷ raw PutItem phase. */
export const handlerOverhead: BenchPhase = {
  name: 'handler',
  description: "create-plant's warm handler time ÷ the raw PutItem it wraps, in process",
  async run({ requests, print }: BenchContext) {
    const engine = await startEngine();
    const client = makeDocumentClient(engine.clientConfig);
    const tableName = PLANTS_TABLE.localName;
    const handle = makeCreatePlantHandler({ plants: client, tableName });
    const template = readFileSync(join(PROJECT_ROOT, 'events', 'create-plant.json'), 'utf8');
    let id = 1_000_000_000_000n;
    const viaHandler = async () => {
      const event = JSON.parse(template) as CreatePlantEvent & { body: string };
      event.requestContext.authorizer = {
        lambda: { tokenId: 'tok_bench', name: 'bench', scopes: PLANTS_WRITE },
      };
      event.body = `{"id":${id++},"name":"Monstera","tag":"aroid"}`;
      const started = performance.now();
      const result = await handle(event);
      const elapsed = performance.now() - started;
      if (result.statusCode !== 200) throw new Error(`the handler answered ${result.statusCode}`);
      return elapsed;
    };
    const raw = async () => {
      const started = performance.now();
      await client.send(
        new PutCommand({
          TableName: tableName,
          Item: {
            id: id++,
            name: 'Monstera',
            tag: 'aroid',
            createdAt: new Date().toISOString(),
            createdBy: 'tok_bench',
          },
          ConditionExpression: 'attribute_not_exists(#key)',
          ExpressionAttributeNames: { '#key': PLANTS_TABLE.partitionKey.name },
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      );
      return performance.now() - started;
    };
    // The function's log line is part of its cost; written to nowhere, as a pipe would take it.
    const write = process.stdout.write;
    process.stdout.write = () => true;
    const [handled, direct]: number[][] = [[], []];
    try {
      for (let i = 0; i < 50; i++) {
        await viaHandler();
        await raw();
      }
      for (let i = 0; i < requests; i++) {
        handled.push(await viaHandler());
        direct.push(await raw());
      }
    } finally {
      process.stdout.write = write;
      client.destroy();
      await engine.close();
    }
    const [h, d] = [median(handled), median(direct)];
    print(
      `Handler overhead (create-plant, warm, in process on dynalite, ${requests} alternating calls, medians):`,
    );
    print(
      `  handler ${h.toFixed(2)} ms, raw PutItem ${d.toFixed(2)} ms: ${(h / d).toFixed(2)}× (goal ≤ 1.2×)\n`,
    );
  },
};
