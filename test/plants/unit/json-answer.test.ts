/** The answer serializer: ids as JSON integers with every digit, everything else as JSON.stringify. */
import { stringifyJson } from '../../../lambda/http/json-answer';
import { jsonResponse } from '../../../lambda/http/answers';

describe('bigint ids keep every digit', () => {
  it.each([
    [-(2n ** 63n), '-9223372036854775808'],
    [2n ** 63n - 1n, '9223372036854775807'],
    [2n ** 53n - 1n, '9007199254740991'],
    [2n ** 53n, '9007199254740992'],
    [2n ** 53n + 1n, '9007199254740993'],
    [-(2n ** 53n + 1n), '-9007199254740993'],
    [0n, '0'],
  ])('%p is written %s', (id, text) => {
    expect(stringifyJson(id)).toBe(text);
    expect(stringifyJson({ id, name: 'Fern' })).toBe(`{"id":${text},"name":"Fern"}`);
    expect(stringifyJson({ plants: [{ id }], next: 'x' })).toBe(
      `{"plants":[{"id":${text}}],"next":"x"}`,
    );
  });

  it('2^53+1 and 2^53 stay two different numbers', () => {
    expect(stringifyJson([2n ** 53n, 2n ** 53n + 1n])).toBe('[9007199254740992,9007199254740993]');
  });

  it('jsonResponse writes its body with it', () => {
    expect(jsonResponse(200, { id: 2n ** 63n - 1n }).body).toBe('{"id":9223372036854775807}');
  });
});

describe('everything else is written as JSON.stringify writes it', () => {
  it.each([
    ['strings with quotes, controls, unicode and lone surrogates', 'a"b\\c\n\u0001🌿\ud800'],
    ['numbers', [0, -0, 1.5, 1e21, NaN, Infinity]],
    ['literals', [true, false, null]],
    ['undefined members, left out', { a: undefined, b: 1, c: () => 1 }],
    ['undefined in arrays, as null', [undefined, () => 1]],
    ['nested objects and empty ones', { a: { b: [{}, []] }, '': 'x' }],
    ['a Date, through its toJSON', { at: new Date(0) }],
    ['an object without a prototype', Object.assign(Object.create(null), { x: 1 })],
  ])('%s', (_, value) => {
    expect(stringifyJson(value)).toBe(JSON.stringify(value));
  });

  it('writes top-level undefined as null, as an answer must be JSON', () => {
    expect(stringifyJson(undefined)).toBe('null');
  });
});
