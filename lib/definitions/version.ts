/**
 * The release version, kept in one place: the root package.json's `version`. The stack outputs
 * it, `openapi.json` states it as `info.version`, and the client package carries the same number
 * (a test holds them equal; lib/release/versions.ts says how it must move).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PROJECT_ROOT } from './bundling';

/** `major.minor.patch`, as package.json says. */
export const VERSION: string = (
  JSON.parse(readFileSync(join(PROJECT_ROOT, 'package.json'), 'utf8')) as { version: string }
).version;
