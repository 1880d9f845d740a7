import { RlmError } from '@rlm/protocol';

/** Where an optional peer dependency comes from, and which store kind needs it. */
export interface OptionalPeer<TModule> {
  /** The npm package, named in the error when it is missing. */
  packageName: string;
  /** The `createStore` kind that needs it. */
  kind: string;
  /**
   * Imports the package, written out at the call site with the package name as a literal, so
   * bundlers and the pack check see which package is imported.
   */
  load: () => Promise<TModule>;
}

/**
 * Imports a database driver that `@rlm/memory` declares as an optional peer, so installing the
 * package pulls in no driver the application does not use.
 *
 * @throws RlmError `config.invalid` naming the package to install when it is missing,
 * `memory.storage_failed` when it is installed but fails to load
 */
export async function loadOptionalPeer<TModule>({
  packageName,
  kind,
  load,
}: OptionalPeer<TModule>): Promise<TModule> {
  try {
    return await load();
  } catch (error) {
    if (isMissingPackage(error, packageName)) {
      const issue = `kind: '${kind}' needs the package "${packageName}", which is not installed; add it next to @rlm/memory (npm install ${packageName})`;
      throw new RlmError({
        code: 'config.invalid',
        message: `Invalid createStore options: ${issue}`,
        details: { source: 'createStore options', issues: [issue] },
        cause: error,
      });
    }
    const reason = error instanceof Error ? error.message : String(error);
    throw new RlmError({
      code: 'memory.storage_failed',
      message: `Loading ${packageName} failed: ${reason}`,
      details: { operation: `load ${packageName}` },
      cause: error,
    });
  }
}

/** True when the import failed because `packageName` itself (not one of its files) is absent. */
function isMissingPackage(error: unknown, packageName: string): boolean {
  if (typeof error !== 'object' || error === null || !('code' in error)) return false;
  if (error.code !== 'ERR_MODULE_NOT_FOUND' && error.code !== 'MODULE_NOT_FOUND') return false;
  const message = 'message' in error ? String(error.message) : '';
  return message.includes(`'${packageName}'`) || message.includes(`"${packageName}"`);
}
