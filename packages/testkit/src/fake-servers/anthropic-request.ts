import type { ChatMessage } from '@rlm/protocol';
import { z } from 'zod';
import { estimateTokens } from '../estimate-tokens.js';
import type { CacheBlock } from './anthropic-prompt-cache.js';

const cacheControlSchema = z.object({
  type: z.literal('ephemeral'),
  ttl: z.enum(['5m', '1h']).optional(),
});

const contentBlockSchema = z.looseObject({
  type: z.string(),
  cache_control: cacheControlSchema.nullish(),
});

const textBlockSchema = z.looseObject({
  type: z.literal('text'),
  text: z.string(),
  cache_control: cacheControlSchema.nullish(),
});

/** The prompt fields of a request body (`count_tokens` takes exactly these; others pass through). */
export const anthropicPromptBodySchema = z.looseObject({
  model: z.string().min(1),
  messages: z.array(
    z.looseObject({
      role: z.enum(['user', 'assistant', 'system']),
      content: z.union([z.string(), z.array(contentBlockSchema)]),
    }),
  ),
  system: z.union([z.string(), z.array(textBlockSchema)]).optional(),
  stop_sequences: z.array(z.string()).optional(),
  cache_control: cacheControlSchema.nullish(),
  tools: z.array(z.looseObject({ cache_control: cacheControlSchema.nullish() })).optional(),
});
export type AnthropicPromptBody = z.infer<typeof anthropicPromptBodySchema>;

/** The fields of a `POST /v1/messages` body the fake server checks. */
export const anthropicMessagesBodySchema = anthropicPromptBodySchema.extend({
  max_tokens: z.number().int().nonnegative(),
  stream: z.boolean().optional(),
});
export type AnthropicMessagesBody = z.infer<typeof anthropicMessagesBodySchema>;

/** The parameters API version 2026-10-21 rejects. */
export const REMOVED_SAMPLING_PARAMETERS = ['temperature', 'top_p', 'top_k'] as const;

/** Lists a body's blocks in render order with their breakpoints, for caching and counting. */
export function cacheBlocksOf(body: AnthropicPromptBody): {
  blocks: CacheBlock[];
  breakpointCount: number;
} {
  const blocks: CacheBlock[] = [];
  let breakpointCount = 0;
  for (const { scope, block, text } of renderOrder(body)) {
    const { cache_control: cacheControl, ...rest } = block as {
      cache_control?: { ttl?: '5m' | '1h' } | null;
    };
    if (cacheControl) breakpointCount += 1;
    blocks.push({
      key: `${scope}:${JSON.stringify(rest)}`,
      tokens: estimateTokens(text),
      breakpoint: cacheControl ? (cacheControl.ttl ?? '5m') : undefined,
    });
  }
  const last = blocks.at(-1);
  if (body.cache_control) {
    // Automatic caching puts the breakpoint on the last block and uses one of the four slots.
    breakpointCount += 1;
    if (last !== undefined && last.breakpoint === undefined) {
      last.breakpoint = body.cache_control.ttl ?? '5m';
    }
  }
  return { blocks, breakpointCount };
}

interface RenderedBlock {
  /** `tool`, `system`, `user` or `assistant`: part of the cache key. */
  scope: string;
  block: Record<string, unknown>;
  /** The text whose size counts as the block's tokens. */
  text: string;
}

/** Blocks in the order the API renders the prompt: tools, system, messages. */
function* renderOrder(body: AnthropicPromptBody): Generator<RenderedBlock> {
  for (const tool of body.tools ?? [])
    yield { scope: 'tool', block: tool, text: JSON.stringify(tool) };
  const system = body.system;
  if (typeof system === 'string') {
    yield { scope: 'system', block: { type: 'text', text: system }, text: system };
  } else {
    for (const block of system ?? []) yield { scope: 'system', block, text: block.text };
  }
  for (const message of body.messages) {
    const content = message.content;
    if (typeof content === 'string') {
      yield { scope: message.role, block: { type: 'text', text: content }, text: content };
    } else {
      for (const block of content) yield { scope: message.role, block, text: textOf(block) };
    }
  }
}

/** The normalised conversation a script sees: system text and one string per message. */
export function conversationOf(body: AnthropicPromptBody): {
  system: string | undefined;
  messages: ChatMessage[];
} {
  const system =
    body.system === undefined
      ? undefined
      : typeof body.system === 'string'
        ? body.system
        : body.system.map((block) => block.text).join('\n');
  const messages: ChatMessage[] = [];
  for (const message of body.messages) {
    const content =
      typeof message.content === 'string'
        ? message.content
        : message.content.map(textOf).join('\n');
    if (message.role === 'system') continue;
    messages.push({ role: message.role, content });
  }
  return { system, messages };
}

function textOf(block: Record<string, unknown>): string {
  const text = block['text'];
  return typeof text === 'string' ? text : JSON.stringify(block);
}
