import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { RlmError } from '@rlm/protocol';
import { parse as parseToml } from 'smol-toml';

/** The file names `rlm` looks for, in order of preference within one directory. */
export const CONFIG_FILE_NAMES = ['rlm.config.json', 'rlm.config.toml'] as const;

/** A config file found on disk, parsed but not yet validated. */
export interface ConfigFile {
  path: string;
  data: unknown;
}

/**
 * Finds the config file in `directory` (or none). Two files side by side are an error: silently
 * preferring one would leave the user editing a file that has no effect.
 *
 * @throws RlmError `config.invalid` when both files exist or the file does not parse
 */
export function loadConfigFileIn(directory: string): ConfigFile | undefined {
  const found = CONFIG_FILE_NAMES.map((name) => join(directory, name)).filter((path) =>
    existsSync(path),
  );
  if (found.length > 1) {
    throw new RlmError({
      code: 'config.invalid',
      message: `Both ${found.join(' and ')} exist; keep one of them.`,
      details: { source: directory, issues: ['two config files'] },
    });
  }
  const [path] = found;
  return path === undefined ? undefined : { path, data: readConfigFile(path) };
}

/** Finds the nearest project config file from `cwd` upwards. */
export function findProjectConfigFile(cwd: string): ConfigFile | undefined {
  let directory = cwd;
  for (;;) {
    const file = loadConfigFileIn(directory);
    if (file !== undefined) return file;
    const parent = dirname(directory);
    if (parent === directory) return undefined;
    directory = parent;
  }
}

/**
 * Reads and parses one config file (JSON or TOML by extension).
 *
 * @throws RlmError `config.invalid` naming the file when it cannot be read or parsed
 */
export function readConfigFile(path: string): unknown {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw invalid(
      path,
      `cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`,
      error,
    );
  }
  try {
    return path.endsWith('.toml') ? parseToml(text) : JSON.parse(text);
  } catch (error) {
    const reason = error instanceof Error ? error.message.split('\n')[0] : String(error);
    throw invalid(
      path,
      `is not valid ${path.endsWith('.toml') ? 'TOML' : 'JSON'}: ${reason}`,
      error,
    );
  }
}

function invalid(path: string, reason: string, cause: unknown): RlmError<'config.invalid'> {
  return new RlmError({
    code: 'config.invalid',
    message: `Config file ${path} ${reason}; fix the file or remove it.`,
    details: { source: path, issues: [reason] },
    cause,
  });
}
