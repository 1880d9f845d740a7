import { describe, expect, it } from 'vitest';
import { rewriteBlock } from './rewrite-block.js';

describe('rewriteBlock', () => {
  it('turns top-level let and const into var', () => {
    expect(rewriteBlock('const a = 1;\nlet b = 2;')).toBe('var a = 1;\nvar b = 2;');
  });

  it('turns a top-level class into a var binding of a class expression', () => {
    expect(rewriteBlock('class K { m() {} }\nnew K()')).toBe(
      'var K = class K { m() {} };\nnew K()',
    );
  });

  it('leaves nested declarations and loop heads alone', () => {
    const code = 'for (const x of [1]) { let y = x; }\nfunction f() { const z = 1; return z; }';
    expect(rewriteBlock(code)).toBe(code);
  });

  it('accepts top-level await', () => {
    expect(rewriteBlock('const v = await p;')).toBe('var v = await p;');
  });

  it('keeps every line where it was', () => {
    const code = 'const a = 1;\nclass B {\n}\nlet c = a;\nthrow new Error()';
    const rewritten = rewriteBlock(code) ?? '';
    expect(rewritten.split('\n')).toHaveLength(code.split('\n').length);
  });

  it('returns undefined for code acorn cannot parse', () => {
    expect(rewriteBlock('const = 1')).toBeUndefined();
  });
});
