import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { assemblePrompt, LAYER_SEPARATOR } from './assemble-prompt.js';
import { buildDynamicContext } from './build-dynamic-context.js';

// Characters that could forge prompt structure: newlines, headers, separators, quotes.
const risky = fc.string({
  unit: fc.constantFrom('a', ' ', '\n', '\r', '#', '=', '>', '"', 'L', 'ayer', '1', '\\'),
  maxLength: 60,
});

const senders = fc.constantFrom('alice', 'bob', 'm"al\nlory', '# Layer 0');

describe('layer 10 quoting (property)', () => {
  it('never lets message or memory text start a line of prompt structure', () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ sender: senders, text: risky }), { maxLength: 4 }),
        fc.array(risky, { maxLength: 3 }),
        (pendingMessages, memory) => {
          const dynamic = buildDynamicContext({
            pendingMessages,
            conversations: pendingMessages.map(({ sender, text }) => ({
              sender,
              messages: [{ role: 'user' as const, text }],
            })),
            recentMemory: memory.filter((text) => text.length > 0),
          });
          for (const line of dynamic.split('\n')) {
            expect(line.startsWith('# ')).toBe(false);
            expect(line.startsWith('=====')).toBe(false);
          }
          const { text } = assemblePrompt({ dynamic });
          expect(text.split(LAYER_SEPARATOR)).toHaveLength(11);
        },
      ),
    );
  });
});
