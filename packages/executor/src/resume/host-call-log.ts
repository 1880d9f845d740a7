import type { JsonValue } from '@rlm/protocol';
import { z } from 'zod';
import type { ToolDefinition } from '../config/tool-definition.js';

/** One host call made by sandbox code, with what it returned. */
export const recordedHostCallSchema = z.object({
  name: z.string(),
  result: z.custom<JsonValue>(() => true),
});
export type RecordedHostCall = z.infer<typeof recordedHostCallSchema>;

interface PendingCall {
  name: string;
  result: JsonValue | undefined;
}

/**
 * Records every host call of a root sandbox in the order code made them, and answers them from a
 * recording while a resumed run re-executes its earlier blocks. Code is deterministic given the
 * results it receives, so the k-th call of a name gets the k-th recorded result of that name.
 */
export class HostCallLog {
  #calls: PendingCall[] = [];
  readonly #replay = new Map<string, JsonValue[]>();

  constructor(recorded: readonly RecordedHostCall[] = []) {
    for (const call of recorded) {
      const queue = this.#replay.get(call.name) ?? [];
      queue.push(call.result);
      this.#replay.set(call.name, queue);
    }
  }

  /** Wraps `functions`: replayed while recorded results remain, live (and recorded) after. */
  wrap(functions: Record<string, ToolDefinition>): Record<string, ToolDefinition> {
    return Object.fromEntries(
      Object.entries(functions).map(([name, tool]): [string, ToolDefinition] => [
        name,
        {
          description: tool.description,
          call: async (args, options) => {
            const queue = this.#replay.get(name);
            if (queue !== undefined && queue.length > 0) return queue.shift() as JsonValue;
            const entry: PendingCall = { name, result: undefined };
            this.#calls.push(entry);
            const result = await tool.call(args, options);
            entry.result = result;
            return result;
          },
        },
      ]),
    );
  }

  /** Ends replay: from now on every call is live. */
  endReplay(): void {
    this.#replay.clear();
  }

  /**
   * The calls made since the previous `take()`, in call order. A call still unsettled (its block
   * was stopped, so code never saw its result) is recorded as `null`, keeping the order intact.
   */
  take(): RecordedHostCall[] {
    const calls = this.#calls;
    this.#calls = [];
    return calls.map((call) => ({ name: call.name, result: call.result ?? null }));
  }
}
