import type { ReplLanguage } from '@rlm/protocol';
import type { ToolSpec } from './tool-spec.js';

/**
 * The section listing the user's host tools with their descriptions, or `undefined` when there
 * are none. JavaScript calls are awaited; Python calls block and return the result.
 *
 * @example
 * toolsSection([{ name: 'search_docs', description: 'Full-text search over the manual.' }]);
 */
export function toolsSection(
  tools: readonly ToolSpec[],
  repl: ReplLanguage = 'javascript',
): string | undefined {
  if (tools.length === 0) return undefined;
  const call = repl === 'python' ? '' : 'await ';
  const rows = tools.map(
    (tool) =>
      `- \`${call}${tool.name}${tool.signature ?? '(…)'}\`: ${tool.description.replace(/\s+/g, ' ')}`,
  );
  const intro =
    repl === 'python'
      ? 'These host functions are available in the REPL as blocking functions; give options as keyword arguments:'
      : 'These host functions are available in the REPL as globals:';
  return ['## Your tools', '', intro, ...rows].join('\n');
}
