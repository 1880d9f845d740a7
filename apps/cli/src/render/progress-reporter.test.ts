import type { RunEvent } from '@rlm/protocol';
import { describe, expect, it } from 'vitest';
import { createProgressReporter } from './progress-reporter.js';

const base = { v: 1, runId: 'root', parentRunId: null, rootRunId: 'root', depth: 0 } as const;
const START = 1_000_000;

async function liveView(events: readonly Record<string, unknown>[], at: number): Promise<string> {
  let written = '';
  const stream = { write: (text: string) => (written += text), columns: 100, rows: 24 };
  const reporter = await createProgressReporter({
    stream,
    mode: 'tree',
    now: () => at,
    color: false,
  });
  for (const event of events) reporter.onEvent({ ...base, ...event } as RunEvent);
  reporter.stop();
  return written;
}

const runStart = {
  at: START,
  type: 'run-start',
  query: 'q',
  model: 'm',
  context: [],
  maxIterations: 30,
  maxDepth: 1,
  promptVersion: 'v',
  repl: 'python',
};

describe('the live progress view', () => {
  it('shows how long the Python interpreter has been loading until the first turn starts', async () => {
    expect(await liveView([runStart], START + 2_000)).toContain(
      'loading the Python interpreter (Pyodide)… 2.0s',
    );
    const started = await liveView(
      [runStart, { at: START + 3_000, type: 'iteration-start', iteration: 0 }],
      START + 4_000,
    );
    expect(started).not.toContain('loading the Python interpreter');
  });
});
