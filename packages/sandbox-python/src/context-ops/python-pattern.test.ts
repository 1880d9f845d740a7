import { describe, expect, it } from 'vitest';
import { pythonPatternToJs } from './python-pattern.js';

describe('pythonPatternToJs', () => {
  it('rewrites named groups, backreferences and anchors, outside escapes and classes', () => {
    expect(pythonPatternToJs('(?P<year>\\d{4})-(?P=year)', '')).toEqual({
      source: '(?<year>\\d{4})-\\k<year>',
      flags: '',
    });
    expect(pythonPatternToJs('\\Aabc\\Z', '').source).toBe('(?<![\\s\\S])abc(?![\\s\\S])');
    expect(pythonPatternToJs('[(?P<x>]\\(?P<y>', '').source).toBe('[(?P<x>]\\(?P<y>');
    expect(pythonPatternToJs('[]\\A]', '').source).toBe('[]\\A]');
  });

  it('moves leading inline flags to flags and drops the ones JavaScript has no use for', () => {
    expect(pythonPatternToJs('(?is)a.b', 'm')).toEqual({ source: 'a.b', flags: 'mis' });
    expect(pythonPatternToJs('abc', 'au')).toEqual({ source: 'abc', flags: '' });
  });

  it('matches what Python would on the rewritten patterns', () => {
    const { source, flags } = pythonPatternToJs('(?i)(?P<w>b\\w+)\\Z', '');
    expect(new RegExp(source, flags).exec('an ABC')?.groups).toEqual({ w: 'BC' });
  });

  it('refuses verbose patterns with sandbox.invalid_pattern', () => {
    for (const [pattern, flags] of [
      ['a b', 'x'],
      ['(?x)a b', ''],
    ] as const) {
      expect(() => pythonPatternToJs(pattern, flags)).toThrow(
        expect.objectContaining({ code: 'sandbox.invalid_pattern' }),
      );
    }
  });
});
