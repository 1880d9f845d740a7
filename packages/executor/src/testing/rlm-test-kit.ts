import type { ChatMessage, ModelRequest, RunEvent } from '@rlm/protocol';
import { createRLM, type OutputSchema, type RLM, type RLMConfig } from '../index.js';

/** A response holding one ```repl block. */
export function repl(code: string, prose = 'Next step:'): string {
  return `${prose}\n\`\`\`repl\n${code}\n\`\`\``;
}

/** The last message of a request (the turn prompt for root calls, the prompt for sub-calls). */
export function lastMessage(request: ModelRequest): ChatMessage {
  const message = request.messages.at(-1);
  if (message === undefined) throw new Error('request without messages');
  return message;
}

/** True for calls made by `llm_query` (no system prompt, one message). */
export function isSubCall(request: ModelRequest): boolean {
  return request.system === undefined;
}

/** An RLM with inline sandboxes (fast, deterministic) unless the test asks for workers. */
export function testRLM<TOutput extends OutputSchema | undefined = undefined>(
  config: RLMConfig & { output?: TOutput },
): RLM<TOutput> {
  return createRLM<TOutput>({ isolation: 'inline', ...config });
}

/** Collects a run's events for assertions. */
export function eventLog(): { events: RunEvent[]; onEvent: (event: RunEvent) => void } {
  const events: RunEvent[] = [];
  return { events, onEvent: (event) => void events.push(event) };
}
