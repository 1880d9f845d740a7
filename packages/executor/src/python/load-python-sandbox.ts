import { RlmError } from '@rlm/protocol';

import { PYTHON_SANDBOX_PACKAGE } from './python-sandbox-package.js';

/** The part of `@rlm/sandbox-python` the executor uses. */
export type PythonSandboxModule = Pick<
  typeof import('@rlm/sandbox-python'),
  'createPythonSandbox' | 'prewarmPythonSandboxes'
>;

/** How the package is imported (tests pass one that fails). */
export type PythonSandboxImporter = () => Promise<PythonSandboxModule>;

// A literal specifier, so tools that read imports (bundlers, the pack check) see the dependency.
const importPackage: PythonSandboxImporter = () => import('@rlm/sandbox-python');

function isModuleNotFound(error: unknown): boolean {
  return (
    typeof error === 'object' &&
    error !== null &&
    (error as { code?: unknown }).code === 'ERR_MODULE_NOT_FOUND'
  );
}

/**
 * Loads `@rlm/sandbox-python`, an optional peer dependency: programs that never choose Python never
 * install it, or Pyodide with it. Node caches the module, so every call after the first is cheap.
 *
 * @throws RlmError `config.invalid` naming the package to install when it (or a file it needs) is
 *   missing; any other failure to load it is rethrown as it is
 */
export async function loadPythonSandbox(
  importer: PythonSandboxImporter = importPackage,
): Promise<PythonSandboxModule> {
  try {
    return await importer();
  } catch (error) {
    if (!isModuleNotFound(error)) throw error;
    const issue = `repl: 'python' needs the optional package ${PYTHON_SANDBOX_PACKAGE}, which is not installed (npm install ${PYTHON_SANDBOX_PACKAGE})`;
    throw new RlmError({
      code: 'config.invalid',
      message: `Python REPLs need ${PYTHON_SANDBOX_PACKAGE}: install it next to @rlm/executor (npm install ${PYTHON_SANDBOX_PACKAGE}, or pnpm add ${PYTHON_SANDBOX_PACKAGE}).`,
      details: { source: 'RLM config', issues: [issue] },
      cause: error,
    });
  }
}
