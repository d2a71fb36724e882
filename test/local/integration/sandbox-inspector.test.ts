/**
 * A pool under the inspector (`npm start -- --inspect`): one sandbox whose inspector answers,
 * invocations queued for it rather than throttled, no idle exit, the port kept across new code,
 * and stack traces that name the .ts lines of a bundle built with source maps.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';
import { freePort } from '../../../lib/local/process/free-port';
import { bundle, dir, pool } from '../../support/sandbox-pool';

describe('under the inspector', () => {
  it('runs one sandbox whose inspector answers; invocations queue for it, none throttled', async () => {
    const inspectPort = await freePort();
    const { pool: p, invoke, lines } = pool({ inspectPort, idleSeconds: 1 });
    await p.warm();
    const list = (await (await fetch(`http://127.0.0.1:${inspectPort}/json/list`)).json()) as {
      type: string;
    }[];
    expect(list[0]!.type).toBe('node');
    const answers = await Promise.all([1, 2, 3].map(() => invoke({ wait: 100 })));
    expect(new Set(answers.map((a) => a.pid)).size).toBe(1);
    expect(answers.map((a) => a.count).sort()).toEqual([1, 2, 3]);
    expect(lines.some((l) => l.startsWith('throttled'))).toBe(false);
    // No idle exit while a debugger may be attached.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(p.size).toBe(1);
  });

  it('keeps the inspector port across new code: the old sandbox goes before the new starts', async () => {
    const inspectPort = await freePort();
    const { pool: p, invoke } = pool({ inspectPort });
    await invoke();
    await p.swap(bundle('counter-3', 'v3'));
    expect((await invoke()).label).toBe('v3');
    expect(p.size).toBe(1);
    expect((await fetch(`http://127.0.0.1:${inspectPort}/json/list`)).status).toBe(200);
  });

  it('names .ts lines in stack traces of a bundle built with source maps', async () => {
    const entry = join(dir, 'fails.ts');
    writeFileSync(
      entry,
      "const label: string = 'fails';\nexport const handler = async () => {\n  throw new Error(label);\n};\n",
    );
    const out = join(dir, 'fails.mjs');
    await build({
      entryPoints: [entry],
      outfile: out,
      bundle: true,
      format: 'esm',
      platform: 'node',
      sourcemap: 'inline',
    });
    const { invoke, lines } = pool({ bundle: out, inspectPort: await freePort() });
    await expect(invoke()).rejects.toThrow('fails');
    expect(lines.join('\n')).toMatch(/fails\.ts:3:\d+/);
  });
});
