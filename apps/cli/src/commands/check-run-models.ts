import type { CliConfig } from '../config/config-schema.js';

/**
 * Resolves the run's model ids once, before any context is read: an unknown provider or policy
 * and a missing key fail in a moment instead of after a 100 MB context has loaded. The clients
 * are dropped; the engine resolves the ids again when the run starts.
 * @throws RlmError `model.unknown_provider`, `model.auth`, `config.invalid`
 */
export async function checkRunModels(
  config: Pick<CliConfig, 'model' | 'subModel' | 'repl'> &
    Partial<Pick<CliConfig, 'taskModel' | 'escalate'>>,
  env: Readonly<Record<string, string | undefined>>,
): Promise<void> {
  const { resolveCliModel } = await import('../engine/resolve-cli-model.js');
  const ids = new Set(
    [config.model, config.subModel, config.taskModel, ...(config.escalate ?? [])].filter(
      (id) => id !== undefined,
    ),
  );
  for (const id of ids) resolveCliModel(id, env, { repl: config.repl });
}
