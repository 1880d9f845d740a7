/** Python's keywords: not usable as the name of a function Python code calls. */
const PYTHON_KEYWORDS = new Set(
  'False None True and as assert async await break class continue def del elif else except finally for from global if import in is lambda nonlocal not or pass raise return try while with yield'.split(
    ' ',
  ),
);

/** The smallest interpreter `@rlm/sandbox-python` starts (a loaded interpreter uses about 21 MiB). */
export const MIN_PYTHON_MEMORY_BYTES = 48 * 1024 * 1024;

/** A config issue: the field's path and what is wrong with it. */
export interface ConfigIssue {
  path: (string | number)[];
  message: string;
}

/**
 * What a configuration that is valid for JavaScript REPLs gets wrong for Python ones: tool names
 * Python cannot call (a `$`, a keyword) and a memory cap below what an interpreter needs. Checked
 * when the config is parsed, so `createRLM` refuses it instead of the first sandbox failing.
 */
export function pythonConfigIssues(config: {
  tools: Record<string, unknown>;
  limits: { memoryBytes?: number | undefined };
}): ConfigIssue[] {
  const issues: ConfigIssue[] = [];
  for (const name of Object.keys(config.tools)) {
    if (name.includes('$') || PYTHON_KEYWORDS.has(name)) {
      issues.push({
        path: ['tools', name],
        message: `'${name}' cannot be called from Python (repl: 'python'): tool names must be Python identifiers that are not keywords`,
      });
    }
  }
  const { memoryBytes } = config.limits;
  if (memoryBytes !== undefined && memoryBytes < MIN_PYTHON_MEMORY_BYTES) {
    issues.push({
      path: ['limits', 'memoryBytes'],
      message: `a Python interpreter needs at least 48 MiB (${MIN_PYTHON_MEMORY_BYTES}); got ${memoryBytes}`,
    });
  }
  return issues;
}
