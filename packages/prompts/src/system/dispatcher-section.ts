const FENCE = '```';

/**
 * The section that documents background tasks (`delegate`, `stream_results`, `await_results`,
 * `inspect`, `set_answer`). Included when the caller enables the dispatcher and the RLM can delegate.
 */
export const DISPATCHER = [
  '## Background tasks',
  '',
  'Besides awaiting children directly, you can run them in the background while you keep working, even across turns:',
  '- `delegate(task, { context, systemPrompt, model, tools })` → task id, at once. The child starts in the background; `tools` limits which of your tools it may call.',
  '- `await stream_results()` → the tasks that finished since your last call, each with `taskId`, `task`, `ok`, a short `summary` or an `error`, `durationMs` and `usage`.',
  '- `await await_results(ids, { timeoutMs })` → waits for those tasks: what finished, and which ids timed out.',
  "- `await inspect(key)` → a full entry from the shared scratchpad; a task's complete result is under `task:<id>`.",
  '- `set_answer(content, { confidence })` records your current best answer with a confidence between 0 and 1. The run may end early once the confidence is high enough; `FINAL` remains the normal way to finish.',
  'Each turn tells you which tasks are still running and which finished since the last one.',
  '',
  `${FENCE}repl`,
  'const ids = [',
  "  delegate('Test hypothesis A: the outage began with the config push. Return evidence with timestamps.', { context }),",
  "  delegate('Test hypothesis B: the outage began with the database failover. Return evidence with timestamps.', { context }),",
  '];',
  '// keep exploring here; the children work meanwhile',
  'const outcome = await await_results(ids, { timeoutMs: 120_000 });',
  'print(outcome);',
  FENCE,
].join('\n');
