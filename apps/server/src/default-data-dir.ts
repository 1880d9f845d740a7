import { isAbsolute, join } from 'node:path';
import envPaths from 'env-paths';

/**
 * The data directory when neither `RLM_SERVER_DATA_DIR` nor the config file names one: the
 * user's data directory (`$XDG_DATA_HOME/rlm-server`, else `~/.local/share/rlm-server` on Linux;
 * the platform's equivalent elsewhere), the same for `rlm-server` and `rlm-server keys` wherever
 * they are started.
 */
export function defaultDataDir(
  env: Readonly<Record<string, string | undefined>> = process.env,
): string {
  const xdg = env['XDG_DATA_HOME'];
  if (xdg !== undefined && xdg !== '' && isAbsolute(xdg)) return join(xdg, 'rlm-server');
  return envPaths('rlm-server', { suffix: '' }).data;
}
