/**
 * dynalite's expression parsers with PEG.js's result cache (lib/local/dynamodb/parser-cache.ts):
 * the same answer as dynalite's own parser for every expression the functions send and for bad
 * ones (the same tree, the same error text, the same names and values marked used), and the
 * engine loads the cached ones.
 */
import { readFileSync } from 'node:fs';
import Module from 'node:module';
import {
  PARSER_MODULES,
  PARSERS,
  UNCACHED_RULES,
  parserFile,
  cachedParse,
  withResultCache,
  type PegParser,
} from '../../../lib/local/dynamodb/parser-cache';
import '../../../lib/local/dynamodb/item-changes';

type Parser = PegParser;

/** A module compiled from `source` as if it were `file`, outside `require.cache`. */
function compiled(source: string, file: string): Parser {
  const parser = new Module(file, module) as Module & {
    _compile(code: string, file: string): void;
  };
  parser.filename = file;
  parser._compile(source, file);
  return parser.exports as Parser;
}

const NAMES = {
  '#key': 'id',
  '#deletedAt': 'deletedAt',
  '#createdAt': 'createdAt',
  '#version': 'version',
  '#tag': 'tag',
  '#list': 'list',
  '#map': 'map',
  // Names that map to reserved words, which is what ExpressionAttributeNames are for.
  '#n': 'name',
  '#s': 'size',
};
const VALUES = {
  ':createdAt': { S: '2026-11-26T00:00:00.000Z' },
  ':one': { N: '1' },
  ':v0': { N: '3' },
  ':tag': { S: 'fern' },
  ':list': { L: [{ S: 'a' }] },
  ':set': { SS: ['a'] },
};

/** A fresh context, as dynalite's validations build one per request. */
function context(): Record<string, unknown> {
  return {
    attrNames: NAMES,
    attrVals: VALUES,
    unusedAttrNames: Object.fromEntries(Object.keys(NAMES).map((name) => [name, true])),
    unusedAttrVals: Object.fromEntries(Object.keys(VALUES).map((name) => [name, true])),
    isReserved: (name: string) => ['SIZE', 'KEY', 'NAME'].includes(name.toUpperCase()),
    compare: (op: string, a: unknown, b: unknown) =>
      op === '<' && JSON.stringify(a) < JSON.stringify(b),
  };
}

/** What a parse gives: the tree or the error, and which names and values it left unused. */
function outcome(parser: Parser, text: string, keyCondition = false) {
  const ctx: Record<string, unknown> = {
    ...context(),
    ...(keyCondition ? { isKeyCondition: true } : {}),
  };
  let result: unknown;
  try {
    result = { tree: parser.parse(text, { context: ctx }) };
  } catch (error) {
    result = { error: `${(error as Error).name}: ${(error as Error).message}` };
  }
  return { result, unusedNames: ctx.unusedAttrNames, unusedValues: ctx.unusedAttrVals };
}

const EXPRESSIONS: Record<(typeof PARSERS)[number], readonly string[]> = {
  conditionParser: [
    // create-plant's, the deepest the functions send
    'attribute_not_exists(#key) OR (attribute_exists(#deletedAt) AND (attribute_not_exists(#createdAt) OR #createdAt < :createdAt))',
    'attribute_exists(#key) AND attribute_not_exists(#deletedAt) AND (#version = :v0 OR attribute_not_exists(#version))',
    '#tag = :tag',
    'NOT (#tag IN (:tag, :createdAt)) AND size(#list) BETWEEN :one AND :v0',
    'begins_with(#tag, :tag) OR contains(#list, :tag) OR attribute_type(#tag, :tag)',
    '((((#tag = :tag))))',
    '#map.inner[0].deep <> :tag',
    // grouped paths: one position reached through two Operands
    '((#n) = :tag OR attribute_not_exists(#n))',
    '((#n) < (:tag))',
    '(#s) = :one AND (#n.inner) <> :tag',
    // bad ones: syntax, unknown names and values, reserved words, misuse
    'attribute_not_exists(#key) OR (',
    '#tag = :missing',
    '#missing = :tag',
    'size = :tag',
    'attribute_not_exists(#key) AND AND #tag = :tag',
    'no_such_function(#tag)',
    '#tag = #tag',
    '',
  ],
  updateParser: [
    'SET #version = if_not_exists(#version, :one) + :one, #tag = :tag REMOVE #deletedAt',
    'SET #list = list_append(if_not_exists(#list, :list), :list) ADD #map :set DELETE #tag :set',
    'SET #map.inner[2] = :tag',
    'SET #tag = :tag SET #tag = :tag',
    'SET #tag = :tag, #tag = :tag',
    'REMOVE',
    'SET #tag = :missing',
  ],
  projectionParser: ['#tag, #map.inner[0], #list[3]', '#tag,, #list', 'size', '#missing'],
};

describe("dynalite's parsers with PEG.js's result cache", () => {
  for (const name of PARSERS) {
    const file = parserFile(name);
    const source = readFileSync(file, 'utf8');

    test(`${name}: the rewrite applies to the installed dynalite`, () => {
      const cached = withResultCache(source);
      expect(cached).toContain('peg$resultsCache[key] = { nextPos: peg$currPos, result: s0 }');
      expect(cached).not.toBe(source);
    });

    test(`${name}: the same tree, error and used names as dynalite's own`, () => {
      const own = compiled(source, file);
      const cached = { parse: cachedParse(own, source, file, UNCACHED_RULES[name])! };
      for (const text of EXPRESSIONS[name]) {
        expect({ text, ...outcome(cached, text) }).toEqual({ text, ...outcome(own, text) });
      }
      const keyCondition = '#key = :one AND begins_with(#tag, :tag)';
      expect(outcome(cached, keyCondition, true)).toEqual(outcome(own, keyCondition, true));
    });
  }

  test('a name mapped to a reserved word, in a grouped path, is accepted as dynalite accepts it', () => {
    const file = parserFile('conditionParser');
    const own = compiled(readFileSync(file, 'utf8'), file);
    const cached = {
      parse: cachedParse(own, readFileSync(file, 'utf8'), file, UNCACHED_RULES.conditionParser)!,
    };
    const text = '((#n) = :tag OR attribute_not_exists(#n))';
    expect(outcome(cached, text).result).toHaveProperty('tree');
    expect(outcome(cached, text)).toEqual(outcome(own, text));
  });

  /** Random token strings, the same each run: mostly syntax errors, and thousands that parse. */
  const TOKENS: Record<(typeof PARSERS)[number], readonly string[]> = {
    conditionParser: [
      '(',
      ')',
      '#tag',
      '#n',
      '#s',
      '#key',
      ':tag',
      ':one',
      ':v0',
      ' = ',
      ' <> ',
      ' < ',
      ' AND ',
      ' OR ',
      'NOT ',
      ' BETWEEN ',
      ' IN ',
      ', ',
      'size(',
      'attribute_exists(',
      'begins_with(',
      'attribute_type(',
      '.',
      '[0]',
      '.c',
      'a',
      'name',
    ],
    updateParser: [
      'SET ',
      'REMOVE ',
      'ADD ',
      'DELETE ',
      '#tag',
      '#n',
      ':tag',
      ':one',
      ' = ',
      ' + ',
      ' - ',
      '(',
      ')',
      ', ',
      'if_not_exists(',
      'list_append(',
      '.',
      '[0]',
      'a',
    ],
    projectionParser: ['#tag', '#n', '(', ')', ', ', '.', '[0]', 'a', 'name', 'size'],
  };
  for (const name of PARSERS) {
    test(`${name}: the same outcome as dynalite's own on 10,000 random expressions`, () => {
      const file = parserFile(name);
      const source = readFileSync(file, 'utf8');
      const own = compiled(source, file);
      const cached = { parse: cachedParse(own, source, file, UNCACHED_RULES[name])! };
      let seed = 42;
      const random = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
      let trees = 0;
      for (let i = 0; i < 10_000; i++) {
        let text = '';
        for (let n = 1 + Math.floor(random() * 9); n > 0; n--) {
          text += TOKENS[name][Math.floor(random() * TOKENS[name].length)];
        }
        const expected = outcome(own, text);
        if ('tree' in (expected.result as object)) trees++;
        expect({ text, ...outcome(cached, text) }).toEqual({ text, ...expected });
      }
      expect(trees).toBeGreaterThan(10);
    });
  }

  test('a source of another shape is left as it is', () => {
    expect(withResultCache('module.exports = {}')).toBeUndefined();
    const source = readFileSync(parserFile('conditionParser'), 'utf8');
    expect(
      withResultCache(source.replace('\n    return s0;\n  }\n', '\n    return s1;\n  }\n')),
    ).toBeUndefined();
    expect(withResultCache(source, ['peg$parseNoSuchRule'])).toBeUndefined();
  });

  test("the engine's dynalite loads the cached parsers", () => {
    for (const name of PARSERS) {
      expect(PARSER_MODULES[name].parse.name).toBe('parseWithResultCache');
    }
  });
});
