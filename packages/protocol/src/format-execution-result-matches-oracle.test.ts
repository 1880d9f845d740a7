import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { entriesFormatExecutionResult } from './__fixtures__/entries-format-execution-result.js';
import { formatExecutionResult } from './format-execution-result.js';
import type { REPLResult } from './repl-result.js';
import { RESERVED_NAMES } from './reserved-names.js';

// formatExecutionResult runs once per block of every turn and was rewritten as plain loops; the
// text the model reads must stay exactly what the straightforward version gave.
const RUNS = { numRuns: 3000 };

/** Output that often ends in line breaks of every kind, or is nothing but one. */
const output = fc.oneof(
  fc.constant(''),
  fc.constantFrom('\n', '\n\n', '\r\n', '\r', 'x\n', 'x\r\n', 'x\n\r', '\u2028', 'a\nb\n'),
  fc
    .tuple(fc.string(), fc.constantFrom('', '\n', '\n\n', '\r\n', ' \n'))
    .map(([text, end]) => text + end),
);

/** Names that are often hidden: reserved, numbered scaffold names, underscores, empty, odd keys. */
const name = fc.oneof(
  fc.constantFrom(...RESERVED_NAMES),
  fc.constantFrom('context_0', 'history_12', 'context_', 'context_x', 'Context_1', '_', '_tmp'),
  fc.constantFrom('', 'x', 'total', '__proto__', 'constructor', 'toString', 'valueOf', '1', '0'),
  fc.string({ maxLength: 6 }),
);

const type = fc.oneof(
  fc.constantFrom('string', 'number', 'boolean', 'bigint', 'array', 'object', 'null'),
  fc.constantFrom('function', 'class', 'undefined', 'symbol', 'String', ''),
  fc.string({ maxLength: 4 }),
);

const locals = fc.dictionary(name, type, { maxKeys: 8 });

const unawaitedCalls = fc.option(
  fc.dictionary(
    fc.constantFrom('llm_query', 'rlm_query', 'grep', 'llm_query_batched', 'x'),
    fc.oneof(fc.integer({ min: -2, max: 5 }), fc.constant(Number.NaN)),
    { maxKeys: 4 },
  ),
  { nil: undefined },
);

const replResult = fc.record({ stdout: output, stderr: output, locals, unawaitedCalls }).map(
  ({ unawaitedCalls, ...fields }) =>
    // A result from before `unawaitedCalls` existed has none: both forms read it as `{}`.
    ({
      ...fields,
      executionTime: 1,
      llmCalls: [],
      finalAnswer: null,
      error: null,
      ...(unawaitedCalls === undefined ? {} : { unawaitedCalls }),
    }) as REPLResult,
);

describe('formatExecutionResult against its earlier form', () => {
  it('gives the same text for any output, variables and unawaited calls', () => {
    fc.assert(
      fc.property(replResult, (result) => {
        expect(formatExecutionResult(result)).toBe(entriesFormatExecutionResult(result));
      }),
      RUNS,
    );
  });

  it('gives the same text for the trivial block of the reference turn', () => {
    const result: REPLResult = {
      stdout: '2\n',
      stderr: '',
      locals: { x: 'number' },
      executionTime: 1,
      llmCalls: [],
      finalAnswer: null,
      error: null,
      unawaitedCalls: {},
    };
    expect(formatExecutionResult(result)).toBe('2\nREPL variables: x');
    expect(entriesFormatExecutionResult(result)).toBe('2\nREPL variables: x');
  });
});
