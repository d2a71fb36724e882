/**
 * dynalite's expression parsers with PEG.js's result cache (patches/dynalite+4.0.0.patch, applied
 * by patch-package at install): the same answer as the parser without the cache for every
 * expression the functions send and for bad ones (the same tree, the same error text, the same
 * names and values marked used), and dynalite's validations load the patched ones.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import conditionParser from 'dynalite/db/conditionParser';
import projectionParser from 'dynalite/db/projectionParser';
import updateParser from 'dynalite/db/updateParser';

const PARSERS = { conditionParser, updateParser, projectionParser } as const;
type Parser = { parse(text: string, options?: object): unknown };
const NAMES_OF_PARSERS = Object.keys(PARSERS) as (keyof typeof PARSERS)[];

/** The parser without its cache, as dynalite's own parse. */
const uncached = (name: keyof typeof PARSERS): Parser => ({
  parse: PARSERS[name].parseWithoutCache,
});

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

const EXPRESSIONS: Record<keyof typeof PARSERS, readonly string[]> = {
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
  test("dynalite's validations load the patched parsers", () => {
    const validations = join(dirname(require.resolve('dynalite')), 'validations', 'index.js');
    expect(readFileSync(validations, 'utf8')).toContain("require('../db/conditionParser')");
    for (const name of NAMES_OF_PARSERS) {
      expect(PARSERS[name].parse.name).toBe('peg$parseWithResultCache');
      const source = readFileSync(require.resolve(`dynalite/db/${name}`), 'utf8');
      expect(source).toContain('peg$resultsCache[key] = { nextPos: peg$currPos, result: s0 }');
    }
  });

  for (const name of NAMES_OF_PARSERS) {
    test(`${name}: the same tree, error and used names as without the cache`, () => {
      for (const text of EXPRESSIONS[name]) {
        expect({ text, ...outcome(PARSERS[name], text) }).toEqual({
          text,
          ...outcome(uncached(name), text),
        });
      }
      const keyCondition = '#key = :one AND begins_with(#tag, :tag)';
      expect(outcome(PARSERS[name], keyCondition, true)).toEqual(
        outcome(uncached(name), keyCondition, true),
      );
    });
  }

  test('a name mapped to a reserved word, in a grouped path, is accepted as dynalite accepts it', () => {
    const text = '((#n) = :tag OR attribute_not_exists(#n))';
    expect(outcome(conditionParser, text).result).toHaveProperty('tree');
    expect(outcome(conditionParser, text)).toEqual(outcome(uncached('conditionParser'), text));
  });

  /** Random token strings, the same each run: mostly syntax errors, and thousands that parse. */
  const TOKENS: Record<keyof typeof PARSERS, readonly string[]> = {
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
  for (const name of NAMES_OF_PARSERS) {
    test(`${name}: the same outcome as without the cache on 10,000 random expressions`, () => {
      const own = uncached(name);
      const cached = PARSERS[name];
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
});
