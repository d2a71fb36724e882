/**
 * Readable errors without `--enable-source-maps`: a stack trace names the `lambda/…/*.ts` lines,
 * and the functions minifying renamed, through the bundle's linked `index.mjs.map`, read only when
 * a stack is first formatted (an error logged), never at cold start. Node's option parses every
 * map at import, ~15 ms of CPU on each cold start (docs/performance.md); this reads it on the
 * error path, once per sandbox, with Node's own `SourceMap`.
 */
import { existsSync, readFileSync } from 'node:fs';
import type { SourceMap, SourceMapping, SourceMapPayload } from 'node:module';

// `node:url` on the error path only: no other module of a bundle imports it, and its module
// facade would be built at every cold start.
const url = () => process.getBuiltinModule('node:url');

/** A script's map with the URL its sources are relative to, or null: none beside it. */
interface LoadedMap {
  readonly map: SourceMap;
  readonly base: URL;
  /** The script's path, and its lines once a frame's name has needed them. */
  readonly script: string;
  lines?: readonly string[];
}

/** Each script's map, read once; null for a script without one (or one that cannot be read). */
const maps = new Map<string, LoadedMap | null>();

function mapOf(script: string): LoadedMap | null {
  let loaded = maps.get(script);
  if (loaded !== undefined) return loaded;
  loaded = null;
  const { fileURLToPath, pathToFileURL } = url();
  const path = script.startsWith('file:') ? fileURLToPath(script) : script;
  const file = `${path}.map`;
  try {
    if (existsSync(file)) {
      const payload = JSON.parse(readFileSync(file, 'utf8')) as SourceMapPayload;
      // `node:module` is loaded here, on the error path, not at every cold start.
      const { SourceMap } = process.getBuiltinModule('node:module');
      loaded = { map: new SourceMap(payload), base: pathToFileURL(file), script: path };
    }
  } catch {
    // An unreadable map leaves the frames as they are: a stack is never lost to its mapping.
  }
  maps.set(script, loaded);
  return loaded;
}

/** Line `index` (from 0) of the script, read once; undefined when it cannot be read. */
function scriptLine(loaded: LoadedMap, index: number): string | undefined {
  try {
    loaded.lines ??= readFileSync(loaded.script, 'utf8').split('\n');
  } catch {
    loaded.lines = [];
  }
  return loaded.lines[index];
}

/**
 * The original name of the mapping that starts exactly at a position of the script (from 0), or
 * undefined. Node's entries carry `name`; its types do not.
 */
function nameAt(map: SourceMap, line: number, column: number): string | undefined {
  const entry = map.findEntry(line, column) as Partial<SourceMapping> & { name?: string };
  if (entry.generatedLine !== line || entry.generatedColumn !== column) return undefined;
  return entry.name || undefined;
}

/** A declared function's head, `function Qe` to `async function* Qe`, its name last. */
const DECLARED = /^(?:async\s+)?function\s*(?:\*\s*)?([\w$]+)/;
/** A construction's head, `new Qe`, its name last. */
const CONSTRUCTED = /^new\s+([\w$]+)/;
/** A call's head, `Qe(`: the name itself. */
const CALLED = /^([\w$]+)/;

/**
 * The original name mapped exactly at `minified` where `head` finds it last in the text at a
 * position of the script (from 1, as V8 counts), or undefined.
 */
function nameAfter(
  loaded: LoadedMap,
  line: number,
  column: number,
  head: RegExp,
  minified: string,
): string | undefined {
  const found = head.exec(scriptLine(loaded, line - 1)?.slice(column - 1) ?? '');
  if (found?.[1] !== minified) return undefined;
  return nameAt(loaded.map, line - 1, column - 1 + found[0].length - minified.length);
}

/**
 * The name minifying took from a frame's function (`minified`), as the map keeps it where the
 * bundle spells that very name: where the function is declared (`async function Qe`), else where
 * the next frame, in the same script, constructs it (`new Qe`) or calls it (`Qe(`). Not Node's
 * rules for `--enable-source-maps`, which take the name mapped at the function's start (an arrow
 * function starts with its parameter, whose name it would take) or at the call, whatever the
 * bundle spells there (a function called as `fn` would be named `fn`). Undefined when none does.
 */
function originalName(
  loaded: LoadedMap,
  minified: string,
  constructed: boolean,
  site: NodeJS.CallSite,
  caller: NodeJS.CallSite | undefined,
): string | undefined {
  const line = site.getEnclosingLineNumber();
  const column = site.getEnclosingColumnNumber();
  const declared = line && column && nameAfter(loaded, line, column, DECLARED, minified);
  if (declared) return declared;
  const callerLine = caller?.getLineNumber();
  const callerColumn = caller?.getColumnNumber();
  if (caller?.getFileName() !== site.getFileName() || !callerLine || !callerColumn) {
    return undefined;
  }
  const head = constructed ? CONSTRUCTED : CALLED;
  return nameAfter(loaded, callerLine, callerColumn, head, minified);
}

/**
 * One frame's bundle position replaced by the TypeScript one, and a plain function's or
 * constructor's minified name by its own (`at async createPlant (…)`, not `at async Qe (…)`), or
 * undefined: not mapped. A method keeps V8's text: its own name is a property, never minified
 * (its class's, before the dot, is the minified one).
 */
function mappedFrame(
  site: NodeJS.CallSite,
  caller: NodeJS.CallSite | undefined,
): string | undefined {
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
  let head = text.slice(0, index);
  const minified = site.getFunctionName();
  const plain = minified && /^(async |new )?([\w$]+) \($/.exec(head);
  if (plain && plain[2] === minified) {
    const name = originalName(loaded, minified, plain[1] === 'new ', site, caller);
    if (name) head = `${plain[1] ?? ''}${name} (`;
  }
  return `${head}${place}${text.slice(index + at.length)}`;
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
      mapped = sites.map((site, i) => mappedFrame(site, sites[i + 1]));
    } catch {
      mapped = []; // a stack is never lost to its mapping
    }
    if (previous && mapped.every((frame) => frame === undefined)) return previous(error, sites);
    const frames = sites.map((site, i) => `\n    at ${mapped[i] ?? site.toString()}`).join('');
    return `${Error.prototype.toString.call(error)}${frames}`;
  };
}
