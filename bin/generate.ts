/** `npm run generate [-- --check]`: see `lib/generators/command.ts`. */
import { runCli } from '../lib/cli/run';
import { generateCommand } from '../lib/generators/command';

runCli('npm run generate', generateCommand);
