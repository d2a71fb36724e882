/**
 * Figures for the local runtime: `npm start` to the first answered request, its first 60
 * requests at once (the cold burst), and what the local gateway adds to a request over calling
 * the two handlers in-process.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { makeAuthorizerHandler } from '../../../lambda/authorizer/handler';
import { makeCreatePlantHandler } from '../../../lambda/create-plant/handler';
import { makeDocumentClient } from '../../../lambda/aws/dynamodb';
import { PLANTS_TABLE, TOKENS_TABLE } from '../../../lambda/aws/tables';
import { PROJECT_ROOT } from '../../definitions/bundling';
import { startLocal } from '../../npm-start/in-process';
import { untilRecorded } from '../../npm-start/find';
import { spawnOnFreePorts } from '../../npm-start/spawn';
import { coldBurst, describeColdBurst } from './cold-burst';
import { median } from './measure';
import type { BenchContext, BenchPhase } from './phase';

/** Milliseconds from spawning `npm start -- --memory` to its first answered request. */
async function startToFirstAnswer(dataDir: string): Promise<number> {
  const started = performance.now();
  const npmStart = await spawnOnFreePorts(dataDir, ['--memory']);
  try {
    for (;;) {
      const answered = await fetch(`${npmStart.url}/plants`, { method: 'POST' }).then(
        (response) => response.status === 401,
        () => false,
      );
      if (answered) return performance.now() - started;
      if (performance.now() - started > 60_000) throw new Error('npm start did not answer in 60 s');
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  } finally {
    // The next start takes the same data directory's lock, on a quiet machine.
    await npmStart.stop();
  }
}

/** A fresh `npm start -- --memory` whose first requests are 60 authorized GETs at once. */
async function getBurst(dataDir: string) {
  const npmStart = await spawnOnFreePorts(dataDir, ['--memory']);
  try {
    const token = await untilRecorded(dataDir, () => npmStart.child.exitCode !== null);
    return await coldBurst(() =>
      fetch(`${npmStart.url}/plants/1`, { headers: { authorization: `Bearer ${token}` } }),
    );
  } finally {
    await npmStart.stop();
  }
}

/** The local runtime's start time and per-request overhead. */
export const localRuntime: BenchPhase = {
  name: 'local',
  description: 'npm start to the first answer; what the local gateway adds to a request',
  run: (context) => benchLocalRuntime(context),
};

async function benchLocalRuntime({ dir, requests, print }: BenchContext): Promise<void> {
  print('Local runtime:');
  const dataDir = join(dir, 'local-data');
  const cold = await startToFirstAnswer(dataDir);
  const warm = await startToFirstAnswer(dataDir);
  print(
    `  npm start to first answer: ${cold.toFixed(0)} ms with no bundles built, ${warm.toFixed(0)} ms with bundles built`,
  );
  print(describeColdBurst('authorized GET /plants/1, no such plant', await getBurst(dataDir)));

  const service = await startLocal({
    port: 0,
    dbPort: 0,
    dataDir,
    memory: true,
    authCacheTtlSeconds: 0,
    log: () => undefined,
  });
  try {
    // The engine's operator: the handlers run here, in process, not in npm start's sandboxes.
    const endpoint = service.engineClientConfig;
    const authorize = makeAuthorizerHandler({
      tokens: makeDocumentClient(endpoint),
      tableName: TOKENS_TABLE.localName,
    });
    const create = makeCreatePlantHandler({
      plants: makeDocumentClient(endpoint),
      tableName: PLANTS_TABLE.localName,
    });
    const authorization = `Bearer ${service.devToken}`;
    const body = '{"id":1,"name":"Bench"}';
    // The handlers' Powertools lines go straight to stdout: written to nowhere, as a pipe would take them.
    const write = process.stdout.write;
    process.stdout.write = () => true;
    const inProcess: number[] = [];
    const overHttp: number[] = [];
    const template = readFileSync(join(PROJECT_ROOT, 'events', 'create-plant.json'), 'utf8');
    try {
      for (let i = 0; i < requests; i++) {
        const event = JSON.parse(template);
        event.headers.authorization = authorization;
        event.body = body;
        let t = performance.now();
        const decision = await authorize({
          ...event,
          type: 'REQUEST',
          identitySource: [authorization],
        });
        if (!decision.isAuthorized) throw new Error('the dev token was denied');
        event.requestContext.authorizer = { lambda: decision.context };
        await create(event);
        inProcess.push(performance.now() - t);
        t = performance.now();
        const response = await fetch(`${service.url}/plants`, {
          method: 'POST',
          headers: { authorization, 'content-type': 'application/json' },
          body,
        });
        await response.text();
        overHttp.push(performance.now() - t);
      }
    } finally {
      process.stdout.write = write;
    }
    const [a, b] = [median(inProcess), median(overHttp)];
    print(
      `  per request (authorizer + create-plant, cache off, ${requests} requests, medians): in-process ${a.toFixed(2)} ms, through the local gateway ${b.toFixed(2)} ms: +${(b - a).toFixed(2)} ms\n`,
    );
  } finally {
    await service.close();
  }
}
