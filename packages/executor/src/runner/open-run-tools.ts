import { RlmError } from '@rlm/protocol';
import type { ToolDefinition } from '../config/tool-definition.js';
import type { RunInput, RunToolSet } from './runner-types.js';

/** A run's tools in one record, and how to close the sets opened for it. */
export interface OpenRunTools {
  tools: Record<string, ToolDefinition>;
  close(): Promise<void>;
}

/**
 * Opens the run's tool sets in order (closing those already open when one fails) and merges
 * them after its own tools.
 * @throws RlmError `config.invalid` when two tools share a name
 */
export async function openRunTools({
  tools = {},
  toolSets = [],
  signal,
}: Pick<RunInput, 'tools' | 'toolSets' | 'signal'>): Promise<OpenRunTools> {
  const opened: RunToolSet[] = [];
  const close = async () => {
    await Promise.all(opened.splice(0).map((set) => set.close().catch(() => undefined)));
  };
  try {
    const merged: Record<string, ToolDefinition> = { ...tools };
    for (const open of toolSets) {
      const set = await open({ signal });
      opened.push(set);
      for (const [name, tool] of Object.entries(set.tools)) {
        if (Object.hasOwn(merged, name)) {
          const issue = `tools: ${name} is defined twice (two tool servers, or a server and the run's own tools); give one of them a prefix`;
          throw new RlmError({
            code: 'config.invalid',
            message: `Invalid run tools: ${issue}`,
            details: { source: 'run tools', issues: [issue] },
          });
        }
        merged[name] = tool;
      }
    }
    return { tools: merged, close };
  } catch (error) {
    await close();
    throw error;
  }
}
