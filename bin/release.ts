/** `npm run release -- <command>`: see `lib/release/release-cli.ts`. */
import { runCli } from '../lib/cli/run';
import { runReleaseCli } from '../lib/release/release-cli';

runCli('release', runReleaseCli);
