import { RlmError } from '@rlm/protocol';
import type { Driver } from './driver.js';
import { parseDriver } from './parse-driver.js';

/** A driver file's location and contents, read by the caller (the CLI reads a directory). */
export interface DriverFile {
  path: string;
  text: string;
}

/**
 * Parses driver files, in the order given. The package never touches a file system: the caller
 * reads the files and passes their texts, which keeps it runtime-neutral.
 *
 * @throws RlmError `prompts.driver_invalid` for a bad file or two drivers with the same name
 * @example
 * const drivers = loadDrivers([{ path: 'drivers/terse.md', text }]);
 */
export function loadDrivers(files: readonly DriverFile[]): Driver[] {
  const drivers: Driver[] = [];
  const seen = new Map<string, string>();
  for (const file of files) {
    const driver = parseDriver(file.text, file.path);
    const earlier = seen.get(driver.name);
    if (earlier !== undefined) {
      throw new RlmError({
        code: 'prompts.driver_invalid',
        message: `Driver name "${driver.name}" in ${file.path} is already used by ${earlier}`,
        details: {
          source: file.path,
          issues: [`name: "${driver.name}" is already used by ${earlier}`],
        },
      });
    }
    seen.set(driver.name, file.path);
    drivers.push(driver);
  }
  return drivers;
}
