/**
 * The kept releases: `releases/<version>/` holds what each release synthesized (the default and
 * prod templates) and its `openapi.json`, so that a later version can be compared with it.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../definitions/bundling';
import type { Template } from './stateful';
import { compareVersions, parseVersion } from './versions';

/** Where the releases are kept. */
export const RELEASES_DIR = join(PROJECT_ROOT, 'releases');

/**
 * The stacks a release keeps, each with the context it is synthesized with: the default stack,
 * and prod as deployed, with an alarm address (the alarm topic's key exists only with one).
 */
export const RELEASE_STACKS = [
  { stackName: 'PlantStore', context: {} },
  { stackName: 'PlantStore-prod', context: { stage: 'prod', alarmEmail: 'ops@example.com' } },
] as const satisfies readonly { stackName: string; context: Record<string, string> }[];

/** A kept stack's name. */
export type ReleaseStackName = (typeof RELEASE_STACKS)[number]['stackName'];

/** The kept releases' versions, lowest first. */
export function releaseVersions(dir: string = RELEASES_DIR): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .filter((name) => {
      try {
        parseVersion(name);
        return true;
      } catch {
        return false;
      }
    })
    .sort(compareVersions);
}

/** One kept release. */
export interface Release {
  readonly version: string;
  readonly templates: Readonly<Record<ReleaseStackName, Template>>;
  readonly openapi: Record<string, unknown>;
}

/** Reads a kept release (the last one when no version is given). */
export function readRelease(version?: string, dir: string = RELEASES_DIR): Release {
  const chosen = version ?? releaseVersions(dir).at(-1);
  if (chosen === undefined) throw new Error(`no release is kept in ${dir}`);
  const read = (file: string) =>
    JSON.parse(readFileSync(join(dir, chosen, file), 'utf8')) as Record<string, unknown>;
  return {
    version: chosen,
    templates: Object.fromEntries(
      RELEASE_STACKS.map(({ stackName }) => [stackName, read(`${stackName}.template.json`)]),
    ) as unknown as Record<ReleaseStackName, Template>,
    openapi: read('openapi.json'),
  };
}
