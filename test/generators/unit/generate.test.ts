/**
 * The mechanism of `npm run generate`, on a project of its own in a temp folder with targets and
 * block producers of its own: a stale file or block is named and, with `check`, left as it is;
 * without, written; a fresh project is left alone; a block no producer fills, or a marker
 * without its pair, is named with its page and nothing is written to that page.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import {
  generate as generateWith,
  type BlockProducer,
  type GeneratedFile,
} from '../../../lib/generators/generate';

let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'generate-'));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

// Prettier cannot be loaded in Jest (it imports its plugins dynamically): the pages here are laid
// out as written, and test/generators/e2e/generate.test.ts runs the command with Prettier.
const generate = (
  at: string,
  files: GeneratedFile[],
  blocks: Record<string, BlockProducer>,
  check: boolean,
) => generateWith(at, files, blocks, check, async (_path, text) => text);

const put = (path: string, text: string) => {
  mkdirSync(dirname(join(root, path)), { recursive: true });
  writeFileSync(join(root, path), text);
};
const read = (path: string) => readFileSync(join(root, path), 'utf8');

const FILES: GeneratedFile[] = [
  { path: 'out.json', text: async () => '{"fresh":true}\n' },
  { path: 'events/made.json', text: async () => '{"made":true}\n', keepExisting: true },
];
const BLOCKS = { answer: () => 'The answer is **42**.', list: async () => '- one\n- two' };

const page = (answer: string, list = '- one\n- two') => `# A page

Prose stays.

<!-- BEGIN GENERATED: answer -->

${answer}

<!-- END GENERATED: answer -->

More prose.

<!-- BEGIN GENERATED: list -->

${list}

<!-- END GENERATED: list -->
`;

describe('a project whose generated files and blocks are fresh', () => {
  it('has nothing stale, and nothing is written', async () => {
    put('out.json', '{"fresh":true}\n');
    put('events/made.json', '{"tuned":"by hand"}\n');
    put('README.md', page('The answer is **42**.'));
    put(
      'docs/guides/a.md',
      '# No blocks\n\nA block is `<!-- BEGIN GENERATED: name -->`, quoted.\n',
    );
    expect(await generate(root, FILES, BLOCKS, true)).toEqual({ stale: [], errors: [] });
    expect(await generate(root, FILES, BLOCKS, false)).toEqual({ stale: [], errors: [] });
    expect(read('events/made.json')).toBe('{"tuned":"by hand"}\n');
  });

  it('names a producer whose block is on no page (its figure written by hand, or removed)', async () => {
    put('out.json', '{"fresh":true}\n');
    put('events/made.json', '{"tuned":"by hand"}\n');
    put('README.md', page('The answer is **42**.'));
    const blocks = { ...BLOCKS, orphan: () => 'nowhere' };
    expect(await generate(root, FILES, blocks, true)).toEqual({
      stale: [],
      errors: ['lib/generators/blocks.ts: block orphan is on no page of README.md or docs/'],
    });
  });
});

describe('a project with a stale file, a missing event and a stale block', () => {
  beforeEach(() => {
    put('out.json', '{"fresh":false}\n');
    put('docs/guides/a.md', page('The answer is **41**.'));
  });

  it('--check names each one and writes nothing', async () => {
    expect(await generate(root, FILES, BLOCKS, true)).toEqual({
      stale: ['out.json', 'events/made.json', 'docs/guides/a.md: block answer'],
      errors: [],
    });
    expect(read('out.json')).toBe('{"fresh":false}\n');
    expect(read('docs/guides/a.md')).toBe(page('The answer is **41**.'));
  });

  it('generate writes each one, the prose around the blocks as it was; then all are fresh', async () => {
    await generate(root, FILES, BLOCKS, false);
    expect(read('out.json')).toBe('{"fresh":true}\n');
    expect(read('events/made.json')).toBe('{"made":true}\n');
    expect(read('docs/guides/a.md')).toBe(page('The answer is **42**.'));
    expect(await generate(root, FILES, BLOCKS, true)).toEqual({ stale: [], errors: [] });
  });

  it('fills an empty block', async () => {
    put('docs/b.md', '# B\n\n<!-- BEGIN GENERATED: answer -->\n<!-- END GENERATED: answer -->\n');
    await generate(root, FILES, BLOCKS, false);
    expect(read('docs/b.md')).toBe(
      '# B\n\n<!-- BEGIN GENERATED: answer -->\n\nThe answer is **42**.\n\n<!-- END GENERATED: answer -->\n',
    );
  });
});

describe('a page whose blocks cannot be filled', () => {
  it.each([
    [
      'a block no producer fills',
      page('x').replaceAll('GENERATED: list', 'GENERATED: lsit'),
      'docs/c.md: unknown block lsit (no producer of that name in lib/generators/blocks.ts)',
    ],
    [
      'a BEGIN without its END',
      page('x').replace('<!-- END GENERATED: list -->', ''),
      'docs/c.md: block list has no END GENERATED: list',
    ],
    [
      'an END without its BEGIN',
      page('x').replace('<!-- BEGIN GENERATED: answer -->', ''),
      'docs/c.md: END GENERATED: answer has no BEGIN',
    ],
  ])('%s is named with its page, and the page is left as it is', async (_case, text, error) => {
    put('docs/c.md', text);
    for (const check of [true, false]) {
      expect(await generate(root, [], BLOCKS, check)).toEqual({ stale: [], errors: [error] });
      expect(read('docs/c.md')).toBe(text);
    }
  });
});
