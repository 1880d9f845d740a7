import { formatBytes } from './format-bytes.js';
import type { LoadedContext } from './load-contexts.js';

/** One line per context for stderr: its variable name, source, file count, size and what was skipped. */
export function formatContextReport(contexts: readonly LoadedContext[]): string[] {
  return contexts.map((context, index) => {
    // Several contexts reach the model as `context_0`, `context_1`, …: name them so.
    const name = contexts.length === 1 ? 'context' : `context_${index}`;
    const source = context.label === '-' ? 'standard input' : context.label;
    const files = typeof context.value === 'string' ? '' : `${plural(context.files, 'file')}, `;
    const skipped =
      context.skippedBinary.length === 0
        ? ''
        : ` (skipped ${plural(context.skippedBinary.length, 'binary file')}: ${preview(context.skippedBinary)})`;
    return `${name} ← ${source}: ${files}${formatBytes(context.bytes)}${skipped}`;
  });
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}

function preview(names: readonly string[]): string {
  const shown = names.slice(0, 3).join(', ');
  return names.length > 3 ? `${shown}, …` : shown;
}
