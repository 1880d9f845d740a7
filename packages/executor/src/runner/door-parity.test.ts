import { DOOR_PARITY_CASES, withOfflineModels } from '@rlm/testkit';
import { describe, expect, it } from 'vitest';
import { resolveModel } from '../models/resolve-model.js';
import { createRunner } from './create-runner.js';

// The reference for every door: the runner itself, given the cases' settings as they are.
describe('the door-parity cases on the runner', { timeout: 120_000 }, () => {
  const runner = createRunner({
    resolveModel: withOfflineModels((id: string) => resolveModel(id, { env: {} })),
  });
  for (const { name, settings, query, context, expected } of DOOR_PARITY_CASES) {
    it(`gives the expected outcome for ${name}`, async () => {
      const result = await runner.run(settings as never, { query, context });
      expect({ status: result.status, answer: result.answer }).toEqual(expected);
    });
  }
});
