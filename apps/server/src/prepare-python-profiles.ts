import { prewarmPythonRepl } from '@rlm/executor';
import type { Logger } from 'pino';
import type { ServerConfig } from './server-config.js';

/**
 * When a profile runs Python, loads `@rlm/sandbox-python` and one interpreter at start-up: a
 * missing package stops the server with `config.invalid` naming it (instead of every run of the
 * profile failing), and the first run gets a loaded interpreter. Profiles without Python cost
 * nothing: the package is never imported.
 *
 * @throws RlmError `config.invalid` when a profile has `repl: 'python'` and the package is missing
 */
export async function preparePythonProfiles(config: ServerConfig, logger: Logger): Promise<void> {
  const names = Object.entries(config.profiles)
    .filter(([, profile]) => profile.repl === 'python')
    .map(([name]) => name);
  if (names.length === 0) return;
  await prewarmPythonRepl({ count: 1 });
  logger.info({ profiles: names }, 'Python REPL ready');
}
