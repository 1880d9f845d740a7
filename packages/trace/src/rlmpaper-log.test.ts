import { readFileSync } from 'node:fs';
import { trajectoryRecordSchema } from '@rlm/protocol';
import { describe, expect, it } from 'vitest';
import { trajectoryEvents } from './read-trajectory.js';
import { isRlmpaperLog, safeParseRlmpaperLog } from './rlmpaper-log.js';
import { RLMPAPER_RUN_ID, rlmpaperLogRecords } from './rlmpaper-log-records.js';
import { TraceTree } from './trace-tree.js';

// A log written for these tests in the reference engine's format (metadata, then iterations).
const LOG = readFileSync(new URL('./__fixtures__/rlmpaper-log.jsonl', import.meta.url), 'utf8');
const CONTEXT = 'alpha beta gamma\nThe magic number is 4242.\nomega';

function parsed(text = LOG) {
  const result = safeParseRlmpaperLog(text);
  if (!result.ok) throw new Error(result.error.issues.join('; '));
  return result.value;
}

describe('isRlmpaperLog', () => {
  it('tells a reference-engine log from one of our trajectories', () => {
    expect(isRlmpaperLog(LOG)).toBe(true);
    expect(isRlmpaperLog('{"type":"iteration","prompt":"p"}\n')).toBe(true);
    expect(isRlmpaperLog('{"kind":"header","version":4,"runId":"r"}\n')).toBe(false);
    expect(isRlmpaperLog('not json\n')).toBe(false);
  });
});

describe('safeParseRlmpaperLog', () => {
  it('reads the metadata, the iterations of the run and the context it recorded', () => {
    const log = parsed();
    expect(log.metadata?.root_model).toBe('gpt-5-mini');
    expect(log.runs).toHaveLength(1);
    expect(log.runs[0]?.map((iteration) => iteration.code_blocks.length)).toEqual([2, 3, 1]);
    expect(log.context).toBe(CONTEXT);
  });

  it('splits a file holding several completions where the iteration count starts again', () => {
    const [metadata, first, second] = LOG.trim().split('\n');
    const twice = [metadata, first, second, first, second].join('\n');
    expect(parsed(twice).runs.map((run) => run.length)).toEqual([2, 2]);
  });

  it('names the line and the field of an iteration it cannot read', () => {
    const bad = `${LOG.trim().split('\n')[0]}\n{"type":"iteration","iteration":1,"prompt":"p","code_blocks":[{"result":{}}]}\n`;
    const result = safeParseRlmpaperLog(bad);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.error.line).toBe(2);
    expect(result.error.issues.join('; ')).toContain('code_blocks.0.code');
    const notJson = safeParseRlmpaperLog('{"type":"metadata"}\n{oops\n');
    expect(notJson.ok || notJson.error.line).toBe(2);
  });

  it('skips lines of types it does not know, and takes the context from a run_context line', () => {
    const text = `{"type":"run_context","context":"ctx"}\n{"type":"note","text":"x"}\n{"type":"iteration","iteration":1,"prompt":"p","response":"r","code_blocks":[],"final_answer":"a","iteration_time":1}\n`;
    const log = parsed(text);
    expect(log.context).toBe('ctx');
    expect(log.runs[0]).toHaveLength(1);
  });
});

describe('rlmpaperLogRecords', () => {
  it('writes valid trajectory records: a header, then the events of the run tree', () => {
    const records = rlmpaperLogRecords(parsed());
    for (const record of records) expect(trajectoryRecordSchema.parse(record)).toEqual(record);
    expect(records[0]).toMatchObject({ kind: 'header', runId: RLMPAPER_RUN_ID, repl: 'python' });
  });

  it('shows the log in the trace tree: turns, blocks, errors, sub-calls, the child run, the answer', () => {
    const tree = new TraceTree();
    for (const event of trajectoryEvents(rlmpaperLogRecords(parsed()))) tree.apply(event);
    const root = tree.root;
    expect(root?.model).toBe('gpt-5-mini');
    expect(root?.iterations).toHaveLength(3);
    const [first, second] = root?.iterations ?? [];
    expect(first?.blocks.map((block) => block.stdout)).toEqual([
      '48\nThe magic number is 4242.\n',
      '8484\n',
    ]);
    expect(second?.blocks[2]?.state).toBe('error');
    expect(second?.blocks[2]?.error).toBe("NameError: name 'undefined_name' is not defined");
    expect(second?.subcalls.map((call) => [call.kind, call.model, call.responsePreview])).toEqual([
      ['llm', 'gpt-5-nano', 'yes'],
      ['rlm', 'gpt-5-mini', 'confirmed'],
    ]);
    const childId = second?.subcalls[1]?.childRunId ?? '';
    const child = tree.runs.get(childId);
    expect(child?.depth).toBe(1);
    expect(child?.query).toBe('Double-check: The magic number is 4242.');
    expect(child?.answer?.text).toBe('confirmed');
    expect(root?.answer?.text).toBe('The magic number is 4242.');
    expect(root?.status).toBe('completed');
    // Durations come from the log's seconds: 1.5 + 2.4 + 0.7.
    expect(root?.durationMs).toBeCloseTo(4600);
  });
});
