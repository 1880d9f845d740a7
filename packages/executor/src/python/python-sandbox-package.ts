/**
 * The optional package that runs Python REPLs. Kept apart from the loader so the public types
 * never mention the package: programs without it type-check without it too.
 */
export const PYTHON_SANDBOX_PACKAGE = '@rlm/sandbox-python';
