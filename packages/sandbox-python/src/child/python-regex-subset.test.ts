import { describe, expect, it } from 'vitest';
import { translatePythonRegex } from './python-regex-subset.js';

const UNICODE = 32;
const I = 2;
const M = 8;
const S = 16;

describe('translatePythonRegex', () => {
  it('writes out what differs between the engines on ASCII text', () => {
    expect(translatePythonRegex('a.b', UNICODE)?.source).toBe('a[^\\n]b');
    expect(translatePythonRegex('a.b', UNICODE | S)?.source).toBe('a[\\s\\S]b');
    expect(translatePythonRegex('\\s+', UNICODE)?.source).toBe('[\\t\\n\\v\\f\\r \\x1c-\\x1f]+');
    expect(translatePythonRegex('[\\s,]', UNICODE)?.source).toBe(
      '[\\t\\n\\v\\f\\r \\x1c-\\x1f\\,]',
    );
    expect(translatePythonRegex('^x$', UNICODE)?.source).toBe('(?<![\\s\\S])x(?=\\n?(?![\\s\\S]))');
    expect(translatePythonRegex('^x$', UNICODE | M)?.source).toBe('(?<![^\\n])x(?![^\\n])');
    expect(translatePythonRegex('\\Ax\\Z', UNICODE)?.source).toBe('(?<![\\s\\S])x(?![\\s\\S])');
    expect(translatePythonRegex('(?P<year>\\d{4})-x{,2}', UNICODE)?.source).toBe(
      '(?<year>\\d{4})\\-x{0,2}',
    );
    expect(translatePythonRegex('[a-z]+', UNICODE | I)).toEqual({
      source: '[a-z]+',
      ignoreCase: true,
      minLength: 1,
    });
  });

  it('knows the shortest match, so a caller can bound the number of matches', () => {
    expect(translatePythonRegex('[0-9]{4}-[A-Z]{3}', UNICODE)?.minLength).toBe(8);
    expect(translatePythonRegex('ab|c', UNICODE)?.minLength).toBe(1);
    expect(translatePythonRegex('x(?:ab|)y*\\b', UNICODE)?.minLength).toBe(1);
    expect(translatePythonRegex('(?=abc)a?', UNICODE)?.minLength).toBe(0);
  });

  it('leaves to Python what it cannot prove the same', () => {
    for (const pattern of [
      '(a)\\1', // backreference
      '(?P=x)',
      '(?i)abc', // inline flags
      '(ab)+', // a quantified group
      '(?:ab)*',
      'a*+', // possessive
      'a**',
      '(?>a)', // atomic group
      '[]a]', // a literal ] first in a set
      '[[a]', // what Python warns may become a nested set
      '[a--b]',
      '[\\S]',
      '\\x41', // escapes beyond the plain ones
      '\\u0041',
      '\\0',
      'caf\u00e9', // outside ASCII
      'a{', // a literal brace
      '{1}',
      '(?<=(a))b', // a capture inside a lookaround
      '(a',
      'a)',
      '[a-',
    ]) {
      expect(translatePythonRegex(pattern, UNICODE), pattern).toBeUndefined();
    }
    expect(translatePythonRegex('abc', UNICODE | 64), 're.VERBOSE').toBeUndefined();
    expect(translatePythonRegex('abc', UNICODE | 128), 're.DEBUG').toBeUndefined();
    expect(translatePythonRegex('[Z-a]', UNICODE | I), 'a range across cases').toBeUndefined();
  });
});
