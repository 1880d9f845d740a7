import { createRLM } from '@rlm/executor';
import type { LanguageModel } from '@rlm/protocol';

/** Asks a question about a document far larger than the model's context window. */
export async function askDocument(
  model: LanguageModel,
  { document, question }: { document: string; question: string },
): Promise<string | null> {
  const rlm = createRLM({
    model,
    maxIterations: 12,
    budget: { maxTokens: 2_000_000, maxCostUsd: 1, maxWallTimeMs: 10 * 60_000 },
  });
  const result = await rlm.completion(document, { query: question });
  // `answer` is set only from the model's FINAL(...) / FINAL_VAR(...): null when a limit or an
  // error stopped the run first (its last response is then in `result.partialAnswer`).
  return result.answer;
}
