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
    unawaitedCalls: {},
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

  it('tells the model which calls it never awaited and that their results are lost', () => {
    const text = formatExecutionResult(
      result({ stdout: 'started\n', unawaitedCalls: { llm_query: 3, grep: 1 } }),
    );
    expect(text).toMatch(
      /^started\nWarning: 3 calls to llm_query, 1 call to grep were never awaited/,
    );
    expect(text).toContain('results are lost');
  });

  it('speaks of one call in the singular', () => {
    expect(formatExecutionResult(result({ unawaitedCalls: { llm_query: 1 } }))).toMatch(
      /^Warning: 1 call to llm_query was never awaited; it was cancelled .* its result is lost/,
    );
  });
});
