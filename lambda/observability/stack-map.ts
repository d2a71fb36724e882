/**
 * Readable errors without `--enable-source-maps`: a stack trace names the `lambda/…/*.ts` lines
 * through the bundle's linked `index.mjs.map`, read only when a stack is first formatted (an error
 * logged), never at cold start. Node's option parses every map at import, ~15 ms of CPU on each
 * cold start (docs/performance.md); this reads it on the error path, once per sandbox, with
 * Node's own `SourceMap`.
 */
import { existsSync, readFileSync } from 'node:fs';
import type { SourceMap, SourceMapPayload } from 'node:module';

// `node:url` on the error path only: no other module of a bundle imports it, and its module
// facade would be built at every cold start.
const url = () => process.getBuiltinModule('node:url');

/** A script's map with the URL its sources are relative to, or null: none beside it. */
interface LoadedMap {
  readonly map: SourceMap;
  readonly base: URL;
}

/** Each script's map, read once; null for a script without one (or one that cannot be read). */
const maps = new Map<string, LoadedMap | null>();

function mapOf(script: string): LoadedMap | null {
  let loaded = maps.get(script);
  if (loaded !== undefined) return loaded;
  loaded = null;
  const { fileURLToPath, pathToFileURL } = url();
  const file = `${script.startsWith('file:') ? fileURLToPath(script) : script}.map`;
  try {
    if (existsSync(file)) {
      const payload = JSON.parse(readFileSync(file, 'utf8')) as SourceMapPayload;
      // `node:module` is loaded here, on the error path, not at every cold start.
      const { SourceMap } = process.getBuiltinModule('node:module');
      loaded = { map: new SourceMap(payload), base: pathToFileURL(file) };
    }
  } catch {
    // An unreadable map leaves the frames as they are: a stack is never lost to its mapping.
  }
  maps.set(script, loaded);
  return loaded;
}

/** One frame's bundle position replaced by the TypeScript one, or undefined: not mapped. */
function mappedFrame(site: NodeJS.CallSite): string | undefined {
  const script = site.getFileName();
  const line = site.getLineNumber();
  const column = site.getColumnNumber();
  if (!script || line === null || column === null) return undefined;
  const loaded = mapOf(script);
  if (!loaded) return undefined;
  const origin = loaded.map.findOrigin(line, column);
  if (!('fileName' in origin)) return undefined;
  const text = site.toString();
  const at = `${script}:${line}:${column}`;
  const index = text.lastIndexOf(at);
  if (index < 0) return undefined;
  const source = url().fileURLToPath(new URL(origin.fileName, loaded.base));
  const place = `${source}:${origin.lineNumber}:${origin.columnNumber}`;
  return `${text.slice(0, index)}${place}${text.slice(index + at.length)}`;
}

/**
 * Maps stack traces of this process from now on: a stack with a frame in a script that has a map
 * beside it is laid out as V8 does (`name: message`, then `    at …` per frame) with those frames
 * mapped; any other stack is left to the formatting there was (Node's own, a test runner's).
 * With `--enable-source-maps` on, Node maps at load already: nothing is changed.
 */
export function mapStackTraces(): void {
  if (process.sourceMapsEnabled) return;
  const previous = Error.prepareStackTrace;
  Error.prepareStackTrace = (error: Error, sites: NodeJS.CallSite[]): unknown => {
    let mapped: (string | undefined)[];
    try {
      mapped = sites.map(mappedFrame);
    } catch {
      mapped = []; // a stack is never lost to its mapping
    }
    if (previous && mapped.every((frame) => frame === undefined)) return previous(error, sites);
    const frames = sites.map((site, i) => `\n    at ${mapped[i] ?? site.toString()}`).join('');
    return `${Error.prototype.toString.call(error)}${frames}`;
  };
}
