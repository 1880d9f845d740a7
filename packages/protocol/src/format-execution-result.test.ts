import { describe, expect, it } from 'vitest';
import { formatExecutionResult } from './format-execution-result.js';
import type { REPLResult } from './repl-result.js';

function result(fields: Partial<REPLResult>): REPLResult {
  return {
    stdout: '',
    stderr: '',
    locals: {},
    executionTime: 1,
    llmCalls: [],
    finalAnswer: null,
    error: null,
    ...fields,
  };
}

describe('formatExecutionResult', () => {
  it('says "No output" when a block printed nothing and defined nothing', () => {
    expect(formatExecutionResult(result({}))).toBe('No output');
  });

  it('shows stdout, then stderr, then the variable names', () => {
    const text = formatExecutionResult(
      result({ stdout: 'hello\n', stderr: 'oops\n', locals: { total: 'number', rows: 'array' } }),
    );
    expect(text).toBe('hello\noops\nREPL variables: total, rows');
  });

  it('keeps inner newlines but drops one trailing newline', () => {
    expect(formatExecutionResult(result({ stdout: 'a\nb\n\n' }))).toBe('a\nb\n');
  });

  it('lists value variables of every simple type', () => {
    const locals = {
      s: 'string',
      n: 'number',
      b: 'boolean',
      i: 'bigint',
      a: 'array',
      o: 'object',
      z: 'null',
    };
    expect(formatExecutionResult(result({ locals }))).toBe('REPL variables: s, n, b, i, a, o, z');
  });

  it('leaves out functions, classes and undefined values', () => {
    const locals = { helper: 'function', Model: 'class', nothing: 'undefined', kept: 'string' };
    expect(formatExecutionResult(result({ locals }))).toBe('REPL variables: kept');
  });

  it('leaves out reserved scaffold names and names starting with an underscore', () => {
    const locals = {
      context: 'string',
      context_2: 'array',
      history_0: 'array',
      _tmp: 'number',
      x: 'number',
    };
    expect(formatExecutionResult(result({ locals }))).toBe('REPL variables: x');
  });

  it('says "No output" when only hidden variables exist', () => {
    expect(formatExecutionResult(result({ locals: { _tmp: 'number', fn: 'function' } }))).toBe(
      'No output',
    );
  });
});
