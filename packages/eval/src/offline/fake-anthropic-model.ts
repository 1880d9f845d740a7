import { ANTHROPIC_MODELS, anthropic, DEFAULT_ANTHROPIC_MAX_TOKENS } from '@rlm/executor';
import type { LanguageModel, ModelRequest, ModelResponse } from '@rlm/protocol';
import { type FakeAnthropicServer, type Policy, startFakeAnthropic } from '@rlm/testkit';

/** The Claude model the fake server answers as (it is in both the fake's and the client's tables). */
export const FAKE_ANTHROPIC_MODEL = 'claude-sonnet-5-5';

/** A model served over HTTP by a fake Anthropic server of its own; `close()` stops the server. */
export interface FakeServerModel extends LanguageModel {
  close(): Promise<void>;
}

const fakePricing = ANTHROPIC_MODELS[FAKE_ANTHROPIC_MODEL]?.pricing;

/**
 * Serves `policy` from a fake Anthropic server on 127.0.0.1 (started on the first call) and talks
 * to it with the real `anthropic()` client: the SDK, SSE parsing, retries and the price table
 * all take part, as with the real API.
 */
export function fakeAnthropicModel(
  policy: Policy,
  { contextWindow }: { contextWindow: number },
): FakeServerModel {
  let started: Promise<{ server: FakeAnthropicServer; client: LanguageModel }> | undefined;
  const start = async () => {
    const server = await startFakeAnthropic({ script: policy });
    const client = anthropic({
      model: FAKE_ANTHROPIC_MODEL,
      apiKey: 'sk-offline',
      baseURL: server.url,
      contextWindow,
    });
    return { server, client };
  };
  return {
    id: `anthropic/${FAKE_ANTHROPIC_MODEL}`,
    contextWindow,
    // What the client started on the first call will report: budgets reserve from it up front.
    maxOutputTokens: DEFAULT_ANTHROPIC_MAX_TOKENS,
    ...(fakePricing === undefined ? {} : { pricing: fakePricing }),
    async complete(request: ModelRequest): Promise<ModelResponse> {
      started ??= start();
      const { client } = await started;
      return client.complete(request);
    },
    async close() {
      const running = started;
      started = undefined;
      if (running !== undefined) await (await running).server.close();
    },
  };
}
