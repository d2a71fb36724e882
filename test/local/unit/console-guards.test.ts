/**
 * The console's guard: the key compared in constant time without throwing on a missing, empty
 * or other-length value, and an API call refused unless it carries this run's key, while the
 * page itself needs none.
 */
import type { IncomingMessage } from 'node:http';
import {
  CONSOLE_HEADER,
  isConsoleKey,
  makeConsoleKey,
  refusal,
  type Allowed,
} from '../../../lib/console/guards';

const key = makeConsoleKey();
const allowed: Allowed = {
  hosts: ['127.0.0.1:4000'],
  origins: ['http://127.0.0.1:4000'],
  key,
};

/** A request as the server sees it: its method and headers. */
function req(headers: Record<string, string | string[]>, method = 'GET'): IncomingMessage {
  return { method, headers: { host: '127.0.0.1:4000', ...headers } } as IncomingMessage;
}

/** The same length as `key`, one character changed. */
const otherKey = `${key.slice(0, -1)}${key.endsWith('A') ? 'B' : 'A'}`;

describe('makeConsoleKey', () => {
  it('is 32 random bytes in base64url, new each time', () => {
    expect(key).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(key, 'base64url')).toHaveLength(32);
    expect(makeConsoleKey()).not.toBe(key);
  });
});

describe('isConsoleKey', () => {
  it('matches the key alone', () => {
    expect(isConsoleKey(key, key)).toBe(true);
    expect(otherKey).toHaveLength(key.length);
    expect(isConsoleKey(otherKey, key)).toBe(false);
  });

  it.each([
    ['missing', undefined],
    ['empty', ''],
    ['the old constant', '1'],
    ['longer', `${key}x`],
    ['shorter', key.slice(1)],
    ['repeated (a header sent twice)', [key, key]],
    ['the same characters, more bytes', `${key.slice(0, -1)}é`],
  ])('refuses a value %s, without throwing', (_, given) => {
    expect(isConsoleKey(given, key)).toBe(false);
  });

  it('matches nothing when the key is empty, not even an empty value', () => {
    expect(isConsoleKey('', '')).toBe(false);
    expect(isConsoleKey(undefined, '')).toBe(false);
  });
});

describe('refusal', () => {
  it('answers the page without a key, and an API call with it', () => {
    expect(refusal(req({}), allowed, false)).toBeUndefined();
    expect(refusal(req({ [CONSOLE_HEADER]: key }), allowed, true)).toBeUndefined();
    expect(
      refusal(
        req({ [CONSOLE_HEADER]: key, 'content-type': 'application/json' }, 'POST'),
        allowed,
        true,
      ),
    ).toBeUndefined();
  });

  it.each([
    ['no header', {}],
    ['the old constant 1', { [CONSOLE_HEADER]: '1' }],
    ['another key of the same length', { [CONSOLE_HEADER]: otherKey }],
  ])('refuses an API call with %s, in one line', (_, headers) => {
    const json = { 'content-type': 'application/json' };
    for (const [method, extra] of [
      ['GET', {}],
      ['POST', json],
    ] as const) {
      const why = refusal(req({ ...headers, ...extra }, method), allowed, true);
      expect(why).toMatch(new RegExp(`^refused: .*${CONSOLE_HEADER}`));
      expect(why).not.toContain('\n');
      expect(why).not.toContain(key);
    }
  });

  it('still refuses a foreign Host and another origin, whatever the key', () => {
    const withKey = { [CONSOLE_HEADER]: key };
    expect(refusal(req({ ...withKey, host: 'rebound.example:4000' }), allowed, true)).toMatch(
      /^refused Host/,
    );
    expect(refusal(req({ ...withKey, origin: 'http://attacker.example' }), allowed, true)).toMatch(
      /^refused Origin/,
    );
    expect(refusal(req({ ...withKey, 'sec-fetch-site': 'cross-site' }), allowed, true)).toMatch(
      /^refused a cross-site request/,
    );
  });
});
