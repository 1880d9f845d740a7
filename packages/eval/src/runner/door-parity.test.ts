import { DOOR_PARITY_CASES } from '@rlm/testkit';
import { describe, expect, it } from 'vitest';
import { evalTaskSchema } from '../task/eval-task.js';
import { rlmSystemSchema } from './eval-system.js';
import { createModelResolver } from './model-resolver.js';
import { runRlmAttempt } from './run-rlm-attempt.js';

// Eval is one of the doors onto the runner: a system is the cases' settings, a task their input.
// Eval takes no output schema (its scorers judge the answer), so that case is not eval's.
describe('the door-parity cases through eval', { timeout: 180_000 }, () => {
  for (const { name, settings, query, context, expected } of DOOR_PARITY_CASES) {
    if (settings.outputSchema !== undefined) continue;
    it(`gives the runner’s outcome for ${name}`, async () => {
      const { maxDepth, maxSubcalls } = settings.limits ?? {};
      const system = rlmSystemSchema.parse({
        name: 'rlm',
        kind: 'rlm',
        model: settings.model,
        ...(settings.repl === undefined ? {} : { repl: settings.repl }),
        ...(settings.mode === undefined ? {} : { promptMode: settings.mode }),
        ...(maxDepth === undefined ? {} : { maxDepth }),
        ...(maxSubcalls === undefined ? {} : { budget: { maxSubcalls } }),
      });
      const task = evalTaskSchema.parse({ id: 'parity', query, context, answer: '' });
      const resolveModel = createModelResolver();
      const outcome = await runRlmAttempt({ system, task, resolveModel });
      await resolveModel.close();
      // A run without an answer scores its partial one; the status says which it was.
      const answer = outcome.status === 'completed' ? outcome.answer : null;
      expect({ status: outcome.status, answer }).toEqual(expected);
    });
  }
});
