// The README's smallest example. `pnpm typecheck` compiles it, so it cannot drift from the API.
import { createSandbox } from '@rlm/sandbox';

/** Stands in for a real sub-model call. */
async function ask(prompt: string, signal: AbortSignal): Promise<string> {
  signal.throwIfAborted();
  return `a summary of ${prompt.length} characters`;
}

export async function summarise(document: string): Promise<string | null> {
  const sandbox = await createSandbox({
    context: document,
    functions: {
      llm_query: {
        description: 'Ask a sub-model',
        call: async ([prompt], { signal }) => ask(String(prompt), signal),
      },
    },
  });
  try {
    const result = await sandbox.execute(`
const hits = await grep(/invoice \\d+/i);
const summary = await llm_query('Summarise: ' + context.slice(0, 2000));
FINAL(summary);
`);
    return result.finalAnswer;
  } finally {
    await sandbox.dispose();
  }
}
