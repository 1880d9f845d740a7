import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  addCallUsage,
  type JsonValue,
  type LanguageModel,
  type ModelResponse,
  RlmError,
  type StopReason,
  totalUsage,
  type UsageSummary,
} from '@rlm/protocol';
import type { HostFunction } from '@rlm/sandbox';
import pLimit from 'p-limit';
import { z } from 'zod';

/** Output tokens asked of the client's model per sampled sub-call. @default 4_096 */
export const DEFAULT_SAMPLING_MAX_TOKENS = 4_096;
/** Sub-calls of one `llm_query_batched` running at once. @default 8 */
export const DEFAULT_SUB_CALL_CONCURRENCY = 8;

/** Where a session's sub-calls go and what they have used. */
export interface SubCallBackend {
  /** The MCP server whose client may offer sampling. */
  server: Server;
  /** The model used when the client offers no sampling. */
  model?: LanguageModel | undefined;
  /** @default DEFAULT_SAMPLING_MAX_TOKENS */
  samplingMaxTokens?: number;
  /** @default DEFAULT_SUB_CALL_CONCURRENCY */
  concurrency?: number;
  /**
   * Caps on the whole session's sub-calls: a call is refused (`executor.budget_exceeded`) once
   * the session made `maxSubcalls` calls or used `maxTokens` tokens or `maxCostUsd` dollars.
   * Tokens and cost are known after a call, so calls already running may go past them.
   */
  budget?: SubCallBudget | undefined;
  /** Told of each sub-call as it starts and ends (the session's trajectory). */
  recorder?: SubCallRecorder | undefined;
}

/** Caps on a session's sub-calls; an absent field is no cap. */
export interface SubCallBudget {
  maxSubcalls?: number | undefined;
  maxTokens?: number | undefined;
  maxCostUsd?: number | undefined;
}

/** How a sub-call ended: the response (a sampled one in a model's shape), or the error. */
export type SubCallOutcome = { response: ModelResponse } | { error: unknown };

/** Records sub-calls: `start` is called as one begins and returns what to call when it ends. */
export interface SubCallRecorder {
  start(call: {
    via: 'sampling' | 'model';
    /** The configured model's id, or `sampling` (the client's model is named by its answer). */
    model: string;
    prompt: string;
  }): (outcome: SubCallOutcome) => void;
}

/** One finished sub-call, for progress. */
export interface SubCallEnd {
  via: 'sampling' | 'model';
  ok: boolean;
}

/** The host functions `llm_query` and `llm_query_batched`, with the usage they record. */
export interface SubCallFunctions {
  functions: Record<string, HostFunction>;
  /** Usage of every sub-call so far (sampled calls count calls; their tokens are the client's). */
  usage(): UsageSummary;
  /** Told of each finished sub-call (the session points it at the running block's progress). */
  onEnd: ((end: SubCallEnd) => void) | undefined;
}

function noSubModel(): RlmError {
  return new RlmError({
    code: 'mcp.no_sub_model',
    message:
      'llm_query has no model: the MCP client did not declare the sampling capability, and the server has no model configured. Enable sampling in the client, or start the server with a sub-model (rlm mcp --sub-model <id>).',
    details: {},
  });
}

const SAMPLING_STOP_REASONS: Record<string, StopReason> = {
  endTurn: 'end_turn',
  maxTokens: 'max_tokens',
  stopSequence: 'stop_sequence',
};

const samplingText = (content: unknown): string => {
  const parts = Array.isArray(content) ? content : [content];
  return parts
    .map((part) =>
      typeof part === 'object' && part !== null && (part as { type?: unknown }).type === 'text'
        ? String((part as { text?: unknown }).text ?? '')
        : '',
    )
    .join('');
};

/**
 * `llm_query(prompt)` and `llm_query_batched(prompts)` for a session's sandbox: through MCP
 * sampling (`sampling/createMessage`, the client's own model) when the client declared it, else
 * through the configured model, else a `mcp.no_sub_model` error naming both ways to enable them.
 */
export function subCallFunctions(backend: SubCallBackend): SubCallFunctions {
  const { server, model } = backend;
  const maxTokens = backend.samplingMaxTokens ?? DEFAULT_SAMPLING_MAX_TOKENS;
  const limit = pLimit(backend.concurrency ?? DEFAULT_SUB_CALL_CONCURRENCY);
  let usage: UsageSummary = { models: {} };
  let started = 0;
  const state: SubCallFunctions = {
    functions: {},
    usage: () => usage,
    onEnd: undefined,
  };

  /** Refuses a call the session's budget has no room for; counts it otherwise. */
  function reserve(): void {
    const { maxSubcalls, maxTokens, maxCostUsd } = backend.budget ?? {};
    const total = totalUsage(usage);
    const tokens =
      total.inputTokens + total.outputTokens + total.cacheReadTokens + total.cacheWriteTokens;
    const spent: [string, number, number | undefined][] = [
      ['subcalls', started, maxSubcalls],
      ['tokens', tokens, maxTokens],
      ['cost', total.costUsd, maxCostUsd],
    ];
    for (const [limit, used, max] of spent) {
      if (max === undefined || used < max) continue;
      throw new RlmError({
        code: 'executor.budget_exceeded',
        message: `llm_query refused: this MCP session's ${limit} budget is spent (${used} of ${max}).`,
        details: { limit, used, max },
      });
    }
    started += 1;
  }

  async function complete(prompt: string, signal: AbortSignal, sampling: boolean) {
    if (!sampling) {
      return (model as LanguageModel).complete({
        messages: [{ role: 'user', content: prompt }],
        signal,
      });
    }
    const result = await server.createMessage(
      { messages: [{ role: 'user', content: { type: 'text', text: prompt } }], maxTokens },
      { signal },
    );
    // The client's model is billed to the client: the call is counted, its tokens are not known.
    const response: ModelResponse = {
      text: samplingText(result.content),
      usage: { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 },
      stopReason: SAMPLING_STOP_REASONS[result.stopReason ?? ''] ?? 'other',
      model: `sampling/${result.model}`,
    };
    return response;
  }

  async function ask(prompt: string, signal: AbortSignal): Promise<string> {
    const sampling = server.getClientCapabilities()?.sampling !== undefined;
    if (!sampling && model === undefined) throw noSubModel();
    reserve();
    const via = sampling ? 'sampling' : 'model';
    const finish = backend.recorder?.start({
      via,
      model: sampling ? 'sampling' : (model as LanguageModel).id,
      prompt,
    });
    try {
      const response = await complete(prompt, signal, sampling);
      usage = addCallUsage(usage, {
        model: response.model,
        usage: response.usage,
        ...(response.costUsd === undefined ? {} : { costUsd: response.costUsd }),
      });
      finish?.({ response });
      state.onEnd?.({ via, ok: true });
      return response.text;
    } catch (error) {
      finish?.({ error: signal.aborted ? signal.reason : error });
      state.onEnd?.({ via, ok: false });
      if (signal.aborted) throw signal.reason;
      throw error;
    }
  }

  const single = z.tuple([z.string()]).rest(z.unknown());
  const batch = z.tuple([z.array(z.string())]).rest(z.unknown());
  state.functions = {
    llm_query: {
      description: 'llm_query(prompt) → Promise<string>: one sub-model call.',
      async call(args, { signal }) {
        const parsed = single.safeParse(args);
        if (!parsed.success) return 'Error: llm_query expects (prompt: string)';
        return ask(parsed.data[0], signal);
      },
    },
    llm_query_batched: {
      description:
        'llm_query_batched(prompts) → Promise<string[]>: concurrent sub-model calls, order kept; a failed slot is an "Error: …" string.',
      async call(args, { signal }): Promise<JsonValue> {
        const parsed = batch.safeParse(args);
        if (!parsed.success) return 'Error: llm_query_batched expects (prompts: string[])';
        return Promise.all(
          parsed.data[0].map((prompt) =>
            limit(() =>
              ask(prompt, signal).catch((error: unknown) => {
                if (signal.aborted) throw signal.reason;
                return `Error: ${error instanceof Error ? error.message : String(error)}`;
              }),
            ),
          ),
        );
      },
    },
  };
  return state;
}
