import { needleHaystack } from './tasks/needle-haystack.js';

/**
 * One case of the door-parity suite: run settings in the run contract's shape (`RunSettingsInput`
 * of @rlm/protocol), the input, and the outcome every door must report for them. Each door (the
 * CLI's flags, the server's profiles and bodies, MCP's tool arguments, eval's systems) maps the
 * same settings its own way; its test checks it gets this outcome.
 */
export interface DoorParityCase {
  name: string;
  settings: {
    model: string;
    repl?: 'javascript' | 'python';
    mode?: 'solver' | 'coordinator';
    limits?: { maxDepth?: number; maxIterations?: number; maxSubcalls?: number };
    outputSchema?: Record<string, unknown>;
  };
  query: string;
  context: string;
  expected: { status: string; answer: string | null };
}

const task = needleHaystack({ chars: 12_000, seed: 21 });

/** The settings every door must run alike: offline models, so no key and no network. */
export const DOOR_PARITY_CASES: readonly DoorParityCase[] = [
  {
    name: 'testkit:needle-finder-grep',
    settings: { model: 'testkit:needle-finder-grep' },
    query: task.query,
    context: task.context,
    expected: { status: 'completed', answer: task.answer },
  },
  {
    name: 'maxSubcalls 0',
    // The policy confirms its find with one llm_query; with none allowed, the budget ends the run.
    settings: { model: 'testkit:needle-finder', limits: { maxSubcalls: 0 } },
    query: task.query,
    context: task.context,
    expected: { status: 'budget_exceeded', answer: null },
  },
  {
    name: 'coordinator mode',
    settings: { model: 'testkit:needle-finder', mode: 'coordinator', limits: { maxDepth: 2 } },
    query: task.query,
    context: task.context,
    expected: { status: 'completed', answer: task.answer },
  },
  {
    name: 'a Python REPL',
    settings: { model: 'testkit:needle-finder', repl: 'python' },
    query: task.query,
    context: task.context,
    expected: { status: 'completed', answer: task.answer },
  },
  {
    name: 'an output schema',
    settings: {
      model: 'testkit:needle-finder',
      outputSchema: { type: 'string', pattern: '^[0-9]+$' },
    },
    query: task.query,
    context: task.context,
    expected: { status: 'completed', answer: JSON.stringify(task.answer) },
  },
];
