import type { ChatMessage } from '@rlm/protocol';
import { describe, expect, it } from 'vitest';
import {
  buildAnthropicParams,
  countCacheBreakpoints,
  MAX_CACHE_BREAKPOINTS,
} from './anthropic-params.js';

function conversation(turns: number): ChatMessage[] {
  const messages: ChatMessage[] = [
    { role: 'user', content: 'metadata' },
    { role: 'user', content: 'turn 0' },
  ];
  for (let turn = 1; turn <= turns; turn += 1) {
    messages.push(
      { role: 'assistant', content: `reply ${turn}` },
      { role: 'user', content: `output ${turn}` },
      { role: 'user', content: `turn ${turn}` },
    );
  }
  return messages;
}

const options = { model: 'claude-sonnet-5-5', maxTokens: 1000 };

describe('buildAnthropicParams', () => {
  it('never exceeds the breakpoint limit in any mode, however long the conversation', () => {
    for (const promptCaching of ['auto', 'breakpoints', 'off'] as const) {
      for (const turns of [0, 1, 5, 40]) {
        const params = buildAnthropicParams(
          { system: 'sys', messages: conversation(turns) },
          { ...options, promptCaching },
        );
        expect(countCacheBreakpoints(params)).toBeLessThanOrEqual(MAX_CACHE_BREAKPOINTS);
      }
    }
  });

  it('moves explicit breakpoints to the newest message and the previous request end', () => {
    const params = buildAnthropicParams(
      { system: 'sys', messages: conversation(3) },
      { ...options, promptCaching: 'breakpoints' },
    );
    const marked = params.messages.flatMap((message, index) =>
      Array.isArray(message.content) && message.content.some((block) => 'cache_control' in block)
        ? [index]
        : [],
    );
    expect(marked).toEqual([params.messages.length - 4, params.messages.length - 1]);
    expect(countCacheBreakpoints(params)).toBe(3);
  });

  it('uses top-level automatic caching plus a system breakpoint in auto mode', () => {
    const params = buildAnthropicParams(
      { system: 'sys', messages: conversation(2) },
      { ...options, promptCaching: 'auto' },
    );
    expect(params.cache_control).toEqual({ type: 'ephemeral' });
    expect(params.system).toEqual([
      { type: 'text', text: 'sys', cache_control: { type: 'ephemeral' } },
    ]);
    expect(countCacheBreakpoints(params)).toBe(2);
  });

  it('streams, maps maxTokens and stop, and never sends sampling parameters', () => {
    const params = buildAnthropicParams(
      { messages: [{ role: 'user', content: 'q' }], maxTokens: 5, stop: ['END'] },
      { ...options, promptCaching: 'off' },
    );
    expect(params).toEqual({
      model: 'claude-sonnet-5-5',
      max_tokens: 5,
      messages: [{ role: 'user', content: 'q' }],
      stop_sequences: ['END'],
      stream: true,
    });
  });

  it('adds ttl 1h to every marker when asked, and leaves the default implicit', () => {
    const oneHour = buildAnthropicParams(
      { system: 's', messages: conversation(1) },
      { ...options, promptCaching: 'auto', cacheTtl: '1h' },
    );
    expect(oneHour.cache_control).toEqual({ type: 'ephemeral', ttl: '1h' });
    expect(oneHour.system).toEqual([
      { type: 'text', text: 's', cache_control: { type: 'ephemeral', ttl: '1h' } },
    ]);
    const fiveMinutes = buildAnthropicParams(
      { system: 's', messages: conversation(1) },
      { ...options, promptCaching: 'auto' },
    );
    expect(JSON.stringify(fiveMinutes)).not.toContain('ttl');
  });
});
