import type {
  LanguageModelV2FinishReason,
  LanguageModelV2StreamPart,
  LanguageModelV2Usage,
  LanguageModelV3FinishReason,
  LanguageModelV3StreamPart,
  LanguageModelV3Usage,
} from '@ai-sdk/provider';
import {
  costOfCall,
  type ModelPricing,
  type ModelResponse,
  type StopReason,
  type TokenUsage,
} from '@rlm/protocol';

/** A stream part of either specification version. */
export type AISDKStreamPart = LanguageModelV2StreamPart | LanguageModelV3StreamPart;

const FINISH_REASONS: Readonly<Record<string, StopReason>> = {
  stop: 'end_turn',
  length: 'max_tokens',
  // The provider's safety system stopped the output: a refusal, not a normal end.
  'content-filter': 'refusal',
};

/**
 * Token usage in our convention (`inputTokens` excludes cache reads and writes; `outputTokens`
 * includes reasoning) from either specification version's usage.
 */
export function usageFromAISDK(usage: LanguageModelV2Usage | LanguageModelV3Usage): TokenUsage {
  if (typeof usage.inputTokens === 'object' && usage.inputTokens !== null) {
    const { inputTokens, outputTokens } = usage as LanguageModelV3Usage;
    const cacheReadTokens = inputTokens.cacheRead ?? 0;
    const cacheWriteTokens = inputTokens.cacheWrite ?? 0;
    return {
      inputTokens:
        inputTokens.noCache ??
        Math.max(0, (inputTokens.total ?? 0) - cacheReadTokens - cacheWriteTokens),
      outputTokens: outputTokens.total ?? (outputTokens.text ?? 0) + (outputTokens.reasoning ?? 0),
      cacheReadTokens,
      cacheWriteTokens,
    };
  }
  const v2 = usage as LanguageModelV2Usage;
  const input = v2.inputTokens ?? 0;
  const cached = v2.cachedInputTokens ?? 0;
  // V2 providers disagree on whether `outputTokens` includes reasoning (OpenAI yes, Google no);
  // `totalTokens` always does, so the larger of the two readings is what was billed.
  const output = Math.max(v2.outputTokens ?? 0, (v2.totalTokens ?? 0) - input);
  return {
    inputTokens: Math.max(0, input - cached),
    outputTokens: output,
    cacheReadTokens: cached,
    cacheWriteTokens: 0,
  };
}

function stopReasonOf(
  reason: LanguageModelV2FinishReason | LanguageModelV3FinishReason | undefined,
): StopReason {
  const unified = typeof reason === 'object' ? reason.unified : reason;
  return FINISH_REASONS[unified ?? ''] ?? 'other';
}

/** Folds AI SDK stream parts into the final text, stop reason and usage. */
export class AISDKReplyAccumulator {
  hasText = false;
  finished = false;
  /** The first `error` part, thrown once the stream has been read. */
  error: { value: unknown } | undefined;
  private parts: string[] = [];
  private stopReason: StopReason = 'other';
  private usage: TokenUsage = {
    inputTokens: 0,
    outputTokens: 0,
    cacheReadTokens: 0,
    cacheWriteTokens: 0,
  };
  private responseId: string | undefined;

  /** Returns the usage when `part` reported it (the `finish` part). */
  add(part: AISDKStreamPart): TokenUsage | undefined {
    switch (part.type) {
      case 'text-delta':
        if (part.delta !== '') {
          this.parts.push(part.delta);
          this.hasText = true;
        }
        return undefined;
      case 'response-metadata':
        if (part.id !== undefined) this.responseId = part.id;
        return undefined;
      case 'error':
        this.error ??= { value: part.error };
        return undefined;
      case 'finish':
        this.finished = true;
        this.stopReason = stopReasonOf(part.finishReason);
        this.usage = usageFromAISDK(part.usage);
        return this.usage;
      default:
        return undefined;
    }
  }

  toResponse({ id, pricing }: { id: string; pricing: ModelPricing | undefined }): ModelResponse {
    const usage = this.usage;
    const costUsd =
      pricing === undefined
        ? undefined
        : costOfCall(pricing, {
            inputTokens: usage.inputTokens,
            outputTokens: usage.outputTokens,
            cacheReadTokens: usage.cacheReadTokens,
            cacheWrite5mTokens: usage.cacheWriteTokens,
            cacheWrite1hTokens: 0,
          });
    return {
      text: this.parts.join(''),
      usage,
      stopReason: this.stopReason,
      model: id,
      ...(this.responseId === undefined ? {} : { requestId: this.responseId }),
      ...(costUsd === undefined ? {} : { costUsd }),
    };
  }
}
