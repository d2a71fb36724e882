/**
 * Every repository path the docs (README.md, CHANGELOG.md, docs/, the client's README) and the
 * code's comments (lib/, lambda/, bin/, test/, client/src and client/scripts) cite exists: a
 * path that starts with one of the repository's folders (`lib/local/iam/account.ts`,
 * `docs/runbook.md`, `.github/workflows/ci.yml`), anywhere in a doc's text or a comment, and in
 * markdown each relative link. A pattern (`lambda/<function>/openapi.ts`,
 * `docs/decisions/NNNN-*.md`, `releases/X.Y.Z/`) must have its folder.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';

const ROOT = join(__dirname, '../../..');

/** The folders a cited path starts with. */
const FOLDERS = [
  'lib',
  'lambda',
  'bin',
  'test',
  'docs',
  'client',
  'events',
  'releases',
  '.github',
  '.ci',
];

/**
 * A path as text cites it: one of the folders at the start of a word (not inside a URL or
 * another path), then path characters. Placeholders and globs (`<function>`, `*`, `{id}`, `…`)
 * end the part that must exist.
 */
const CITED = new RegExp(
  `(?<![\\w./@:-])(?:${FOLDERS.map((f) => f.replace('.', '\\.')).join('|')})/[\\w./<>*{}…-]*`,
  'g',
);

/** Relative markdown links: `[text](target)` and `[label]: target`. */
const LINK = /\]\(([^)\s]+)\)|^\[[^\]]+\]:\s*(\S+)/gm;

/** The files that cite, as git lists them (tracked or new, never ignored). */
function files(...pathspecs: string[]): string[] {
  return execFileSync(
    'git',
    ['ls-files', '--cached', '--others', '--exclude-standard', '--', ...pathspecs],
    { cwd: ROOT, encoding: 'utf8' },
  )
    .split('\n')
    .filter((file) => file !== '' && existsSync(join(ROOT, file)));
}

const DOCS = files('README.md', 'CHANGELOG.md', 'docs/*.md', 'docs/**/*.md', 'client/README.md');
const CODE = files(
  ...['lib', 'lambda', 'bin', 'test', 'client/src', 'client/scripts'].flatMap((dir) =>
    ['ts', 'mjs', 'cjs', 'js'].map((ext) => `${dir}/**/*.${ext}`),
  ),
);

/** The part of a cited path that must exist: up to a placeholder, without trailing punctuation. */
function mustExist(cited: string): string {
  const wildcard = cited.search(/[<>*{}…]|NNNN|X\.Y\.Z/);
  const fixed = wildcard === -1 ? cited : cited.slice(0, cited.lastIndexOf('/', wildcard) + 1);
  return fixed.replace(/[.,:;]+$/, '');
}

/** A source file's comments (`//` to the end of the line, `/* … *\/`), where it cites paths. */
const COMMENT = /\/\/[^\n]*|\/\*[\s\S]*?\*\//g;

/** What a file cites that is not there: `<file>: <path>`. */
function missing(file: string): string[] {
  const source = readFileSync(join(ROOT, file), 'utf8');
  const text = file.endsWith('.md') ? source : (source.match(COMMENT) ?? []).join('\n');
  const paths = new Set<string>();
  for (const [cited] of text.matchAll(CITED)) paths.add(mustExist(cited));
  if (file.endsWith('.md')) {
    for (const [, inline, reference] of text.matchAll(LINK)) {
      const target = (inline ?? reference)!.replace(/^<|>$/g, '');
      if (/^(?:[a-z][\w+.-]*:|#|\/)/i.test(target)) continue;
      const path = decodeURIComponent(target.replace(/[#?].*$/, ''));
      if (path !== '') paths.add(relative(ROOT, normalize(join(ROOT, dirname(file), path))));
    }
  }
  return [...paths]
    .filter((path) => !existsSync(join(ROOT, path)))
    .sort()
    .map((path) => `${file}: ${path}`);
}

it.each([
  ['the docs', DOCS],
  ['the code', CODE],
])('every path %s cite exists', (_, cited) => {
  expect(cited.length).toBeGreaterThan(0);
  expect(cited.flatMap(missing)).toEqual([]);
});
