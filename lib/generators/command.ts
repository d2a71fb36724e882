/** `npm run generate [-- --check]`: see `generate.ts`; the files are in `targets.ts`, the blocks in `blocks.ts`. */
import { parseCommandLine } from '../cli/args';
import type { CliIo } from '../cli/run';
import { PROJECT_ROOT } from '../definitions/bundling';
import { GENERATE_HELP, generate } from './generate';

/** The command, on the project at `root`. */
export async function generateCommand(
  argv: readonly string[],
  io: CliIo,
  root: string = PROJECT_ROOT,
): Promise<number> {
  const { values, help } = parseCommandLine(argv, { check: { type: 'boolean' } });
  if (help) {
    io.out(GENERATE_HELP.trimEnd());
    return 0;
  }
  const check = values.check === true;
  // Loaded past --help: the producers reach most of the project (every command's help, the
  // bench's phases, the stack's stages). `require`, not `import()`: under tsx/cjs, as bin/ runs
  // (lib/cli/bin-entry.ts), an import() of TypeScript fails in Node's ESM loader.
  /* eslint-disable @typescript-eslint/no-require-imports */
  const { BLOCKS } = require('./blocks') as typeof import('./blocks');
  const { GENERATED_FILES } = require('./targets') as typeof import('./targets');
  /* eslint-enable @typescript-eslint/no-require-imports */
  const { stale, errors } = await generate(root, GENERATED_FILES, BLOCKS, check);
  for (const error of errors) io.err(`npm run generate: ${error}`);
  if (check) {
    for (const path of stale) io.err(`npm run generate: stale: ${path}`);
    if (stale.length > 0) io.err('npm run generate: run npm run generate and commit the result');
    return stale.length > 0 || errors.length > 0 ? 1 : 0;
  }
  for (const path of stale) io.out(`wrote ${path}`);
  return errors.length > 0 ? 1 : 0;
}
