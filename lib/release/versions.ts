/**
 * The version rule (semver, one number for the stack, the API and the client, kept in the root
 * package.json): the version never goes back; `openapi.json` may change only under a version
 * above the last release's, and a change a client of that release would notice needs a new major;
 * the OpenAPI document and the client package carry the same number; CHANGELOG.md has an entry
 * for every release and, while the version is above the last release, an Unreleased one, each
 * saying what changes for API clients, webhook receivers and operators.
 */
import { UsageError } from '../cli/args';
import { breakingChanges } from './openapi-compat';

/** `major.minor.patch`. */
export interface Version {
  readonly major: number;
  readonly minor: number;
  readonly patch: number;
}

/** Parses `1.2.3`; anything else is an error naming the value. */
export function parseVersion(text: string): Version {
  const match = /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)$/.exec(text);
  if (!match) throw new Error(`not a version (major.minor.patch): ${JSON.stringify(text)}`);
  return { major: Number(match[1]), minor: Number(match[2]), patch: Number(match[3]) };
}

/** `parseVersion` of a version named on a command line: anything else is a usage mistake. */
export function versionArgument(text: string): Version {
  try {
    return parseVersion(text);
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

/** Negative, zero or positive as `a` is below, equal to or above `b`. */
export function compareVersions(a: string, b: string): number {
  const [x, y] = [parseVersion(a), parseVersion(b)];
  return x.major - y.major || x.minor - y.minor || x.patch - y.patch;
}

/** The sections a changelog entry has: who is affected. */
export const CHANGELOG_AUDIENCES = ['API clients', 'Webhook receivers', 'Operators'] as const;

/** What the rule reads. */
export interface VersionState {
  /** The last release's number and its `openapi.json`. */
  readonly released: { readonly version: string; readonly openapi: Record<string, unknown> };
  /** The root package.json's version: the one place. */
  readonly version: string;
  readonly openapi: Record<string, unknown>;
  /** The client package's version. */
  readonly clientVersion: string;
  readonly changelog: string;
}

/** The document without its own version: what clients see change. */
const withoutVersion = (doc: Record<string, unknown>) =>
  JSON.stringify({ ...doc, info: { ...(doc.info as object), version: undefined } });

/** Every way the state breaks the rule, each one line; empty when it holds. */
export function versionProblems(state: VersionState): string[] {
  const problems: string[] = [];
  const { released, version } = state;
  const order = compareVersions(version, released.version);
  if (order < 0) {
    problems.push(
      `package.json's version ${version} is below the last release ${released.version}`,
    );
  }
  const apiVersion = (state.openapi.info as { version?: string } | undefined)?.version;
  if (apiVersion !== version) {
    problems.push(
      `openapi.json's info.version is ${String(apiVersion)}, not package.json's ${version}: npm run openapi`,
    );
  }
  if (state.clientVersion !== version) {
    problems.push(
      `client/package.json's version is ${state.clientVersion}, not package.json's ${version}`,
    );
  }
  if (withoutVersion(state.openapi) !== withoutVersion(released.openapi) && order <= 0) {
    problems.push(
      `openapi.json differs from release ${released.version}'s, under the same version: raise package.json's version (npm version minor --workspaces --include-workspace-root --no-git-tag-version)`,
    );
  }
  const breaking = breakingChanges(released.openapi, state.openapi);
  if (breaking.length > 0 && parseVersion(version).major <= parseVersion(released.version).major) {
    problems.push(
      `openapi.json breaks clients of ${released.version} without a new major version:\n  ${breaking.join('\n  ')}`,
    );
  }
  problems.push(...changelogProblems(state.changelog, released.version, order > 0));
  return problems;
}

/** A changelog's entries by heading (`Unreleased`, `1.0.0`), with their text. */
export function changelogEntries(changelog: string): Map<string, string> {
  const entries = new Map<string, string>();
  const parts = changelog.split(/^## /m).slice(1);
  for (const part of parts) {
    const name = /^\[([^\]]+)\]/.exec(part)?.[1];
    if (name) entries.set(name, part);
  }
  return entries;
}

function changelogProblems(changelog: string, released: string, unreleased: boolean): string[] {
  const entries = changelogEntries(changelog);
  const problems: string[] = [];
  const wanted = [...(unreleased ? ['Unreleased'] : []), released];
  for (const name of wanted) {
    const entry = entries.get(name);
    if (!entry) {
      problems.push(`CHANGELOG.md has no "## [${name}]" entry`);
      continue;
    }
    for (const audience of CHANGELOG_AUDIENCES) {
      if (!new RegExp(`^### ${audience}$`, 'm').test(entry)) {
        problems.push(
          `CHANGELOG.md's ${name} entry says nothing for ${audience} ("### ${audience}")`,
        );
      }
    }
  }
  return problems;
}
