import { describe, expect, it } from 'vitest';
import { parseFlags } from './parse-flags.js';

const spec = { valueFlags: ['out', 'sizes'], booleanFlags: ['resume'] };

describe('parseFlags', () => {
  it('reads --name value, --name=value, booleans and positionals', () => {
    expect(parseFlags(['a', '--out', 'dir', '--sizes=8k,1m', '--resume', 'b'], spec)).toEqual({
      values: { out: 'dir', sizes: '8k,1m', resume: true },
      positionals: ['a', 'b'],
    });
  });

  it('names a flag that is unknown or lacks its value', () => {
    expect(() => parseFlags(['--nope'], spec)).toThrow(
      expect.objectContaining({ code: 'cli.usage', details: { option: '--nope' } }),
    );
    expect(() => parseFlags(['--out'], spec)).toThrow(
      expect.objectContaining({ message: '--out expects a value' }),
    );
    expect(() => parseFlags(['--sizes='], spec)).toThrow(
      expect.objectContaining({ details: { option: '--sizes' } }),
    );
    expect(() => parseFlags(['--resume=yes'], spec)).toThrow(
      expect.objectContaining({ code: 'cli.usage' }),
    );
  });
});
