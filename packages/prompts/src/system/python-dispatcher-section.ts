const FENCE = '```';

/**
 * The Python REPL's section on background tasks (`delegate`, `delegate_batch`, `stream_results`,
 * `await_results`, `inspect`, `set_answer`). Included when the caller enables the dispatcher and the RLM can delegate.
 */
export const PYTHON_DISPATCHER = [
  '## Background tasks',
  '',
  'Besides waiting for children with `rlm_query`, you can run them in the background while you keep working, even across turns:',
  '- `delegate(task, context=…, system_prompt=…, model=…, tools=[…])` → task id, at once. The child starts in the background; `tools` limits which of your tools it may call.',
  "- `delegate_batch(tasks)` → the task ids, at once, in order: one task per item, a string or a dict `{'task': …, 'context': …, 'system_prompt': …, 'model': …, 'tools': […]}`. It is the same as `[delegate(…) for item in tasks]`; use it to start a set of tasks in one line. (`rlm_query_batched` is different: it waits for every child.)",
  "- `stream_results()` → the tasks that finished since your last call, each a dict with `'taskId'`, `'task'`, `'ok'`, a short `'summary'` or an `'error'`, `'durationMs'`, `'usage'` and `'toolCalls'` (how many functions its code called).",
  "- `await_results(ids, timeout_ms=…)` → waits for those tasks: `{'results': […], 'timedOut': […]}` (the ids still running when the time was up).",
  "- `inspect(key)` → a full entry from the shared scratchpad; a task's complete result is under `task:<id>`.",
  '- `set_answer(content, ready=…, confidence=…)` records your answer. `ready=False` keeps it as a draft (reported if the run stops without an answer) and you keep working; `ready=True` ends the run after this turn. Without `ready`, the run may end early once `confidence` (0 to 1) is high enough; `FINAL` remains the normal way to finish.',
  'Each turn tells you which tasks are still running and which finished since the last one.',
  '',
  `${FENCE}repl`,
  'ids = delegate_batch([',
  "    {'task': 'Test hypothesis A: the outage began with the config push. Return evidence with timestamps.', 'context': context},",
  "    {'task': 'Test hypothesis B: the outage began with the database failover. Return evidence with timestamps.', 'context': context},",
  '])',
  '# keep exploring here; the children work meanwhile',
  'outcome = await_results(ids, timeout_ms=120_000)',
  'print(outcome)',
  FENCE,
].join('\n');
