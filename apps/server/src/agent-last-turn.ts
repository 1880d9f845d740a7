import type { AgentMemory } from '@rlm/memory';
import type { AssembledPrompt } from '@rlm/prompts';
import { z } from 'zod';

const LAST_TURN_KEY = 'last-turn';
const TURN_COUNT_KEY = 'turn-count';

/** The assembled prompt of an agent's latest turn, layer by layer, as `GET …/last-turn` shows it. */
export const lastTurnViewSchema = z.object({
  turn: z.number().int().positive(),
  runId: z.string(),
  /** ISO 8601, when the turn started. */
  at: z.string(),
  promptStyle: z.enum(['full', 'compact']),
  promptVersion: z.string(),
  senders: z.array(z.string()),
  layers: z.array(
    z.object({
      id: z.number().int(),
      title: z.string(),
      mutability: z.enum(['immutable', 'mutable', 'dynamic']),
      /** True when compact mode showed this layer as a one-line summary. */
      summarised: z.boolean(),
      /** The layer's block as the model got it, header included. */
      text: z.string(),
    }),
  ),
});
export type LastTurnView = z.infer<typeof lastTurnViewSchema>;

/**
 * Numbers the agent's next turn (1 for its first). Turns of one agent run one at a time (and,
 * with replicas, under the agent's lock), so reading and writing the counter cannot race.
 */
export async function nextTurnNumber(memory: AgentMemory): Promise<number> {
  const entry = await memory.scratchpad.get(TURN_COUNT_KEY);
  const parsed = z.object({ count: z.number().int().nonnegative() }).safeParse(entry?.raw);
  const turn = (parsed.success ? parsed.data.count : 0) + 1;
  await memory.scratchpad.set(TURN_COUNT_KEY, {
    type: 'agent-turn-count',
    summary: `${turn} turns`,
    raw: { count: turn },
  });
  return turn;
}

/** Records the prompt a turn sends, replacing the previous turn's. */
export async function saveLastTurn(
  memory: AgentMemory,
  turn: Omit<LastTurnView, 'layers' | 'promptVersion'>,
  prompt: AssembledPrompt,
): Promise<void> {
  const view: LastTurnView = {
    ...turn,
    promptVersion: prompt.version,
    layers: prompt.layers.map(({ id, title, mutability, summarised, text }) => ({
      id,
      title,
      mutability,
      summarised,
      text,
    })),
  };
  await memory.scratchpad.set(LAST_TURN_KEY, {
    type: 'agent-last-turn',
    summary: `turn ${view.turn} (${view.runId})`,
    raw: view,
  });
}

/** The latest turn's prompt, or `undefined` before the first turn. */
export async function loadLastTurn(memory: AgentMemory): Promise<LastTurnView | undefined> {
  const entry = await memory.scratchpad.get(LAST_TURN_KEY);
  const parsed = lastTurnViewSchema.safeParse(entry?.raw);
  return parsed.success ? parsed.data : undefined;
}
