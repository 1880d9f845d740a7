import type { ToolSpec } from './tool-spec.js';

/**
 * The section listing the user's host tools with their descriptions, or `undefined` when there are none.
 *
 * @example
 * toolsSection([{ name: 'search_docs', description: 'Full-text search over the manual.' }]);
 */
export function toolsSection(tools: readonly ToolSpec[]): string | undefined {
  if (tools.length === 0) return undefined;
  const rows = tools.map(
    (tool) =>
      `- \`await ${tool.name}${tool.signature ?? '(…)'}\`: ${tool.description.replace(/\s+/g, ' ')}`,
  );
  return [
    '## Your tools',
    '',
    'These host functions are available in the REPL as globals:',
    ...rows,
  ].join('\n');
}
