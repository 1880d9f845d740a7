import { createGoogleGenerativeAI } from '@ai-sdk/google';
import { createRLM, fromAISDK, type RLM } from '@rlm/executor';

/** An RLM on Gemini through the AI SDK's Google provider, with a cost cap. */
export function geminiRLM(apiKey: string): RLM {
  const google = createGoogleGenerativeAI({ apiKey });
  const model = fromAISDK(google('gemini-2.5-flash'), {
    maxTokens: 8_192,
    contextWindow: 1_048_576,
    // USD per million tokens from Google's price list; keep them current yourself.
    pricing: { inputPerMTok: 0.3, outputPerMTok: 2.5, cacheReadPerMTok: 0.03 },
  });
  return createRLM({ model, budget: { maxCostUsd: 2 } });
}
