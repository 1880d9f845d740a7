import type Anthropic from '@anthropic-ai/sdk';
import type {
  ContentBlock,
  ContentBlockParam,
  MessageDeltaUsage,
  RawContentBlockDelta,
  RefusalStopDetails,
  Usage,
} from '@anthropic-ai/sdk/resources/messages';
import type { TokenUsage } from '@rlm/protocol';

/** Tokens of one response, split the way Anthropic bills them. */
export interface AnthropicBilledUsage {
  input_tokens: number;
  output_tokens: number;
  cache_creation_input_tokens: number;
  cache_read_input_tokens: number;
  ephemeral_1h_input_tokens: number;
}

/** One streamed response, read to its end. */
export interface AnthropicReply {
  /** Its text blocks in index order, joined with no separator (code fences survive intact). */
  text: string;
  /** Every content block as a request param, for a `pause_turn` continuation. */
  content: ContentBlockParam[];
  usage: AnthropicBilledUsage;
  /** The API's stop reason (`end_turn`, `refusal`, `pause_turn`, …). */
  stopReason: string | null;
  refusal: RefusalStopDetails | null;
  /** The `request-id` header of the HTTP response. */
  requestId?: string | undefined;
}

/** Folds stream events into the reply: text, every content block, stop reason and usage. */
export class AnthropicReplyAccumulator {
  hasText = false;
  stopped = false;
  private stopReason: string | null = null;
  private refusal: RefusalStopDetails | null = null;
  private usage: AnthropicBilledUsage = {
    input_tokens: 0,
    output_tokens: 0,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: 0,
    ephemeral_1h_input_tokens: 0,
  };
  private textBlocks = new Map<number, string>();
  private blocks = new Map<number, ContentBlock>();
  private partialJson = new Map<number, string>();
  private streamedChars = 0;

  /**
   * Usage as far as the stream has told: input (with cache) from `message_start`, output as the
   * larger of what was reported and an estimate of the text and thinking streamed so far (four
   * characters a token), so a call aborted while it thinks is still charged for its thinking.
   */
  usageSoFar(): TokenUsage {
    return {
      inputTokens: this.usage.input_tokens,
      outputTokens: Math.max(this.usage.output_tokens, Math.ceil(this.streamedChars / 4)),
      cacheReadTokens: this.usage.cache_read_input_tokens,
      cacheWriteTokens: this.usage.cache_creation_input_tokens,
    };
  }

  add(event: Anthropic.MessageStreamEvent): void {
    switch (event.type) {
      case 'message_start':
        this.mergeUsage(event.message.usage);
        break;
      case 'content_block_start':
        this.blocks.set(event.index, structuredClone(event.content_block));
        break;
      case 'content_block_delta':
        this.addDelta(event);
        break;
      case 'content_block_stop':
        this.closeBlock(event.index);
        break;
      case 'message_delta':
        this.stopReason = event.delta.stop_reason ?? null;
        this.refusal = event.delta.stop_details ?? null;
        this.mergeUsage(event.usage);
        break;
      case 'message_stop':
        this.stopped = true;
        break;
      default:
        break;
    }
  }

  private addDelta({ index, delta }: Anthropic.RawContentBlockDeltaEvent): void {
    if (delta.type === 'text_delta') {
      this.textBlocks.set(index, (this.textBlocks.get(index) ?? '') + delta.text);
      this.streamedChars += delta.text.length;
      if (delta.text !== '') this.hasText = true;
    } else if (delta.type === 'thinking_delta') {
      this.streamedChars += delta.thinking.length;
    } else if (delta.type === 'input_json_delta') {
      this.partialJson.set(index, (this.partialJson.get(index) ?? '') + delta.partial_json);
    }
    const block = this.blocks.get(index);
    if (block !== undefined) applyDelta(block as unknown as Record<string, unknown>, delta);
  }

  private closeBlock(index: number): void {
    const json = this.partialJson.get(index);
    const block = this.blocks.get(index) as Record<string, unknown> | undefined;
    if (json === undefined || block === undefined) return;
    try {
      block['input'] = JSON.parse(json === '' ? '{}' : json);
    } catch {
      // A cut tool input stays as the start event gave it.
    }
  }

  // message_delta usage values are cumulative totals: overwrite, never add.
  private mergeUsage(usage: Usage | MessageDeltaUsage): void {
    if (usage.input_tokens != null) this.usage.input_tokens = usage.input_tokens;
    if (usage.output_tokens != null) this.usage.output_tokens = usage.output_tokens;
    if (usage.cache_creation_input_tokens != null) {
      this.usage.cache_creation_input_tokens = usage.cache_creation_input_tokens;
    }
    if (usage.cache_read_input_tokens != null) {
      this.usage.cache_read_input_tokens = usage.cache_read_input_tokens;
    }
    const split = 'cache_creation' in usage ? usage.cache_creation : undefined;
    if (split != null) this.usage.ephemeral_1h_input_tokens = split.ephemeral_1h_input_tokens;
  }

  /**
   * The billed usage so far, its output as `usageSoFar` counts it: what an attempt that failed
   * mid-stream is charged (the API bills it, and a retry does not undo that).
   */
  billedSoFar(): AnthropicBilledUsage {
    return { ...this.usage, output_tokens: this.usageSoFar().outputTokens };
  }

  reply(): AnthropicReply {
    const byIndex = <T>(map: Map<number, T>) =>
      [...map.entries()].sort(([left], [right]) => left - right).map(([, value]) => value);
    const content = byIndex(this.blocks)
      // The API refuses blank text blocks in a request.
      .filter((block) => block.type !== 'text' || block.text.trim() !== '')
      .map((block) => block as unknown as ContentBlockParam);
    return {
      text: byIndex(this.textBlocks).join(''),
      content,
      usage: { ...this.usage },
      stopReason: this.stopReason,
      refusal: this.refusal,
    };
  }
}

/** Grows a content block by one delta, as the API builds the block it would send whole. */
function applyDelta(block: Record<string, unknown>, delta: RawContentBlockDelta): void {
  switch (delta.type) {
    case 'text_delta':
      block['text'] = `${block['text'] ?? ''}${delta.text}`;
      break;
    case 'thinking_delta':
      block['thinking'] = `${block['thinking'] ?? ''}${delta.thinking}`;
      break;
    case 'signature_delta':
      block['signature'] = delta.signature;
      break;
    case 'citations_delta': {
      const citations = Array.isArray(block['citations']) ? block['citations'] : [];
      block['citations'] = [...citations, delta.citation];
      break;
    }
    default:
      // input_json_delta: parsed once the block stops.
      break;
  }
}
