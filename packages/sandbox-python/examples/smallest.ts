// The README's smallest example. `pnpm typecheck` compiles it and a test runs it, so it cannot
// drift from the API.
import { createPythonSandbox } from '@rlm/sandbox-python';

/** Stands in for a real sub-model call. */
async function ask(prompt: string, signal: AbortSignal): Promise<string> {
  signal.throwIfAborted();
  return `a summary of ${prompt.length} characters`;
}

export async function summarise(document: string): Promise<string | null> {
  const sandbox = await createPythonSandbox({
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
hits = grep(r"invoice \\d+", flags="i")
summary = llm_query("Summarise: " + context[:2000])
FINAL(summary)
`);
    return result.finalAnswer;
  } finally {
    await sandbox.dispose();
  }
}
