/**
 * What `npm run generate` does with the list of generated targets (`targets.ts`): writes each
 * file whose committed text differs from its fresh text, or with `--check` writes nothing and
 * names each stale file and each stale or unknown block. A target is a whole file (openapi.json,
 * a reference page) or the generated blocks of a markdown page, which `blocks.ts` fills by name.
 */
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** What `npm run generate -- --help` prints. */
export const GENERATE_HELP = `Usage: npm run generate [-- --check]

Rewrites every committed file derived from the code: openapi.json, the client's types
(client/src/schema.ts), .vscode/launch.json, events/<function>.json for an API function that has
none (an existing event is kept), the reference pages (docs/reference/), and each generated block
(<!-- BEGIN GENERATED: name --> ... <!-- END GENERATED: name -->) in README.md and docs/.
Commit them with the change.

Options:
  --check  write nothing; exit 1 naming each stale file or block (npm test runs it)
  --help   this text
`;

/** One generated file, by its path from the project's root ('/'-separated). */
export interface GeneratedFile {
  readonly path: string;
  /** Its fresh text. */
  readonly text: () => Promise<string>;
  /**
   * Written only when missing: a committed copy is kept as it is (an event tuned by hand).
   * @default false: the file is always its fresh text
   */
  readonly keepExisting?: boolean;
}

/** A block producer: the markdown between a block's markers. */
export type BlockProducer = () => string | Promise<string>;

/** What `generate` found. */
export interface GenerateResult {
  /** Each stale file (its path) and each stale block (`<page>: block <name>`): written, or with `check` not. */
  readonly stale: readonly string[];
  /** Each mistake in a page's markers, or a block no producer fills: nothing is written for that page. */
  readonly errors: readonly string[];
}

/** The markers of a generated block, each a line of its own (a marker quoted in prose is not one). */
const BLOCK = /^<!-- BEGIN GENERATED: ([\w-]+) -->$[\s\S]*?^<!-- END GENERATED: \1 -->$/gm;
const MARKER = /^<!-- (BEGIN|END) GENERATED: (\S*) -->$/gm;

/** The markdown pages that may hold generated blocks: README.md and docs/**\/*.md. */
export function markdownPages(root: string): string[] {
  const pages: string[] = existsSync(join(root, 'README.md')) ? ['README.md'] : [];
  const walk = (dir: string) => {
    if (!existsSync(join(root, dir))) return;
    for (const entry of readdirSync(join(root, dir), { withFileTypes: true })) {
      const path = `${dir}/${entry.name}`;
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.md')) pages.push(path);
    }
  };
  walk('docs');
  return pages.sort();
}

/** How a page's text is laid out once its blocks are filled: `(path, text) => text`. */
export type Layout = (path: string, text: string) => Promise<string>;

/** The layout of every committed page: Prettier's, with the project's settings. */
export const prettierLayout =
  (root: string): Layout =>
  async (path, text) => {
    // Loaded when used: Prettier loads its plugins by dynamic import, which Jest cannot run.
    const { format, resolveConfig } = await import('prettier');
    const options = (await resolveConfig(join(root, path))) ?? {};
    return format(text, { ...options, filepath: path });
  };

/** A page with its blocks filled, and what differed or could not be filled. */
interface FilledPage {
  readonly text: string;
  readonly staleBlocks: string[];
  readonly errors: string[];
}

/** The names of a page's blocks and each block's text, markers included. */
const blocksOf = (page: string) => new Map([...page.matchAll(BLOCK)].map((m) => [m[1]!, m[0]]));

/**
 * The page `text` with each generated block filled by its producer, as Prettier formats the
 * page (`layout`); or, on a marker mistake or an unknown name, the page as it is and the mistakes.
 */
async function fillBlocks(
  path: string,
  text: string,
  blocks: Readonly<Record<string, BlockProducer>>,
  layout: Layout,
): Promise<FilledPage> {
  const errors: string[] = [];
  const open: string[] = [];
  for (const [, kind, name] of text.matchAll(MARKER)) {
    if (kind === 'BEGIN') {
      if (open.length > 0) errors.push(`${path}: block ${name} begins inside block ${open[0]}`);
      open.push(name!);
    } else if (open.pop() !== name) errors.push(`${path}: END GENERATED: ${name} has no BEGIN`);
  }
  for (const name of open) errors.push(`${path}: block ${name} has no END GENERATED: ${name}`);
  const filled = new Map<string, string>();
  for (const [, name] of errors.length > 0 ? [] : text.matchAll(BLOCK)) {
    const producer = Object.hasOwn(blocks, name!) ? blocks[name!] : undefined;
    if (producer === undefined) {
      errors.push(
        `${path}: unknown block ${name} (no producer of that name in lib/generators/blocks.ts)`,
      );
    } else filled.set(name!, (await producer()).trim());
  }
  if (errors.length > 0) return { text, staleBlocks: [], errors };
  const fresh = await layout(
    path,
    text.replace(BLOCK, (_block, name: string) => {
      const body = filled.get(name)!;
      return `<!-- BEGIN GENERATED: ${name} -->\n\n${body}\n\n<!-- END GENERATED: ${name} -->`;
    }),
  );
  const committed = blocksOf(text);
  const staleBlocks = [...blocksOf(fresh)]
    .filter(([name, block]) => committed.get(name) !== block)
    .map(([name]) => `${path}: block ${name}`);
  // The prose around the blocks is Prettier's already, or `npm run check` says so first.
  if (staleBlocks.length === 0 && fresh !== text)
    staleBlocks.push(`${path}: its layout (Prettier)`);
  return { text: fresh, staleBlocks, errors };
}

/**
 * Brings every target under `root` up to date, or with `check` only says which are not. The
 * markdown pages that are not whole-file targets are read for generated blocks.
 */
export async function generate(
  root: string,
  files: readonly GeneratedFile[],
  blocks: Readonly<Record<string, BlockProducer>>,
  check: boolean,
  layout: Layout = prettierLayout(root),
): Promise<GenerateResult> {
  const stale: string[] = [];
  const errors: string[] = [];
  const write = (path: string, text: string) => {
    if (check) return;
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  };
  const read = (path: string) =>
    existsSync(join(root, path)) ? readFileSync(join(root, path), 'utf8') : undefined;
  for (const file of files) {
    const committed = read(file.path);
    if (file.keepExisting && committed !== undefined) continue;
    const text = await file.text();
    if (committed === text) continue;
    stale.push(file.path);
    write(file.path, text);
  }
  const whole = new Set(files.map((file) => file.path));
  const placed = new Set<string>();
  for (const path of markdownPages(root)) {
    const text = read(path)!;
    if (whole.has(path) || !text.includes('GENERATED: ')) continue;
    for (const [, name] of text.matchAll(BLOCK)) placed.add(name!);
    const page = await fillBlocks(path, text, blocks, layout);
    errors.push(...page.errors);
    stale.push(...page.staleBlocks);
    if (page.text !== text) write(path, page.text);
  }
  // A producer whose block is on no page: its figure was written by hand, or removed (told once
  // the markers are right: a marker mistake hides its block).
  const unplaced = errors.length > 0 ? [] : Object.keys(blocks).filter((name) => !placed.has(name));
  for (const name of unplaced) {
    errors.push(`lib/generators/blocks.ts: block ${name} is on no page of README.md or docs/`);
  }
  return { stale, errors };
}
