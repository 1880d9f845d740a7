import { formatExecutionResult } from './format-execution-result.js';
import type { ChatMessage } from './language-model.js';
import type { RLMIteration } from './rlm-iteration.js';
import { DEFAULT_MAX_OUTPUT_CHARS, truncateOutput } from './truncate-output.js';

export interface FormatIterationOptions {
  /** Cap per block's formatted output. @default DEFAULT_MAX_OUTPUT_CHARS */
  maxCharacterLength?: number;
}

/**
 * The messages a finished turn adds to the conversation: the assistant's response, then one user
 * message with every block's output (each cut at `maxCharacterLength`). A turn without code adds
 * only the assistant message.
 */
export function formatIteration(
  iteration: Pick<RLMIteration, 'response' | 'codeBlocks'>,
  { maxCharacterLength = DEFAULT_MAX_OUTPUT_CHARS }: FormatIterationOptions = {},
): ChatMessage[] {
  const messages: ChatMessage[] = [{ role: 'assistant', content: iteration.response }];
  const blocks = iteration.codeBlocks;
  if (blocks.length === 0) return messages;
  const outputs = blocks.map((block, index) => {
    const heading = blocks.length === 1 ? 'REPL output:' : `REPL output (block ${index + 1}):`;
    return `${heading}\n${truncateOutput(formatExecutionResult(block.result), maxCharacterLength)}`;
  });
  messages.push({ role: 'user', content: outputs.join('\n\n') });
  return messages;
}
