/**
 * Readable errors without `--enable-source-maps`: a stack trace names the `lambda/…/*.ts` lines
 * through the bundle's linked `index.mjs.map`, read only when a stack is first formatted (an error
 * logged), never at cold start. Node's option parses every map at import, ~15 ms of CPU on each
 * cold start (docs/performance.md); this reads it on the error path, once per sandbox, with
 * Node's own `SourceMap`.
 */
import { existsSync, readFileSync } from 'node:fs';
import { SourceMap, type SourceMapPayload } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';

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
  const file = `${script.startsWith('file:') ? fileURLToPath(script) : script}.map`;
  try {
    if (existsSync(file)) {
      const payload = JSON.parse(readFileSync(file, 'utf8')) as SourceMapPayload;
      loaded = { map: new SourceMap(payload), base: pathToFileURL(file) };
    }
  } catch {
    // An unreadable map leaves the frames as they are: a stack is never lost to its mapping.
  }
  maps.set(script, loaded);
  return loaded;
}

/** One frame as V8 prints it, its bundle position replaced by the TypeScript one when mapped. */
function mappedFrame(site: NodeJS.CallSite): string {
  const text = site.toString();
  const script = site.getFileName();
  const line = site.getLineNumber();
  const column = site.getColumnNumber();
  if (!script || line === null || column === null) return text;
  const loaded = mapOf(script);
  if (!loaded) return text;
  const origin = loaded.map.findOrigin(line, column);
  if (!('fileName' in origin)) return text;
  const source = fileURLToPath(new URL(origin.fileName, loaded.base));
  const at = `${script}:${line}:${column}`;
  const place = `${source}:${origin.lineNumber}:${origin.columnNumber}`;
  const index = text.lastIndexOf(at);
  return index < 0 ? text : `${text.slice(0, index)}${place}${text.slice(index + at.length)}`;
}

/** V8's own layout: the error's `name: message`, then one `    at …` line per frame. */
function prepareStackTrace(error: Error, sites: NodeJS.CallSite[]): string {
  const frames = sites.map((site) => `\n    at ${mappedFrame(site)}`).join('');
  return `${Error.prototype.toString.call(error)}${frames}`;
}

/** Node's own formatting (Node 24 exposes it as `Error.prepareStackTrace`), or V8's (none). */
function isNodeDefault(prepare: typeof Error.prepareStackTrace): boolean {
  return prepare === undefined || prepare.name === 'ErrorPrepareStackTrace';
}

/**
 * Maps stack traces of this process from now on, unless something else already formats them
 * (Node with `--enable-source-maps`, a test runner): those are left as they are.
 */
export function mapStackTraces(): void {
  if (!isNodeDefault(Error.prepareStackTrace) || process.sourceMapsEnabled) return;
  Error.prepareStackTrace = prepareStackTrace;
}
