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
  const ids = new Set(
    [config.model, config.subModel, config.taskModel, ...(config.escalate ?? [])].filter(
      (id) => id !== undefined,
    ),
  );
  const { loadCliModelResolver } = await import('../engine/load-cli-model-resolver.js');
  const resolve = await loadCliModelResolver([...ids]);
  for (const id of ids) resolve(id, env, { repl: config.repl });
}
