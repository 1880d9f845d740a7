import { readFile } from 'node:fs/promises';
import { BUILTIN_DRIVER_NAMES, type DriverRef } from '@rlm/prompts';
import { RlmError } from '@rlm/protocol';

/** True for a driver given by built-in name (`terse`) rather than a file path. */
export function isBuiltinDriverName(value: string): boolean {
  return (BUILTIN_DRIVER_NAMES as readonly string[]).includes(value);
}

/**
 * Turns configured drivers into references @rlm/prompts accepts: built-in names stay names, files
 * are read here (the prompts package never touches the file system) and parsed by `loadDrivers`.
 *
 * @throws RlmError `config.invalid` for an unreadable file; `prompts.driver_invalid` for a bad one
 */
export async function readDrivers(drivers: readonly string[]): Promise<DriverRef[]> {
  const files = await Promise.all(
    drivers
      .filter((driver) => !isBuiltinDriverName(driver))
      .map(async (path) => {
        try {
          return { path, text: await readFile(path, 'utf8') };
        } catch (error) {
          const code = (error as NodeJS.ErrnoException).code ?? 'read error';
          throw new RlmError({
            code: 'config.invalid',
            message: `Cannot read driver file ${path} (${code}); check the --driver path, or use a built-in driver name (${BUILTIN_DRIVER_NAMES.join(', ')}).`,
            details: { source: path, issues: [`unreadable driver file: ${code}`] },
            cause: error,
          });
        }
      }),
  );
  // The driver parser (and its YAML reader) loads only when a run uses drivers.
  const parsed = files.length === 0 ? [] : (await import('@rlm/prompts')).loadDrivers(files);
  let next = 0;
  return drivers.map((driver) => {
    if (isBuiltinDriverName(driver)) return driver;
    const loaded = parsed[next];
    next += 1;
    if (loaded === undefined) throw new Error('readDrivers: parsed fewer drivers than files');
    return loaded;
  });
}
