import type { RunEvent } from '@rlm/protocol';

/** Characters of a prompt or error shown in one progress line. */
const PREVIEW_CHARS = 80;

function preview(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length <= PREVIEW_CHARS ? flat : `${flat.slice(0, PREVIEW_CHARS - 1)}…`;
}

/** Child runs are indented by depth, so a reader sees the recursion as a tree. */
function indent(event: RunEvent): string {
  return '  '.repeat(event.depth);
}

/**
 * One human-readable line (ending in a newline) for a run event an OpenAI client may show while
 * the run works, or undefined for events that say nothing new to a person (model-call and
 * iteration ends, the run's end). Lines are plain text: clients show them as "thinking".
 */
export function runProgressLine(event: RunEvent): string | undefined {
  const pad = indent(event);
  const line = (text: string) => `${pad}${text}\n`;
  switch (event.type) {
    case 'run-start':
      return event.depth === 0
        ? line(`RLM run started (${event.model}, at most ${event.maxIterations} turns).`)
        : line(`Child RLM started: ${preview(event.query)}`);
    case 'run-resume':
      return line(`RLM run resumed at turn ${event.fromIteration + 1}.`);
    case 'iteration-start':
      return line(`Turn ${event.iteration + 1}`);
    case 'block-start':
      return line(`  running code block ${event.index + 1}`);
    case 'block-end':
      return event.error === null
        ? undefined
        : line(`  code block ${event.index + 1} failed: ${preview(event.error.message)}`);
    case 'subcall-start':
      return line(
        `  ${event.kind === 'rlm' ? 'rlm_query' : 'llm_query'} (${event.model}): ${preview(event.promptPreview)}`,
      );
    case 'subcall-end':
      return event.ok ? undefined : line(`  sub-call failed: ${event.error?.code ?? 'error'}`);
    case 'task-start':
      return line(`Task ${event.taskId} started: ${preview(event.task)}`);
    case 'task-end':
      return line(`Task ${event.taskId} ${event.ok ? 'done' : 'failed'}.`);
    case 'limit-hit':
      return line(`Limit reached: ${event.limit} (${event.used} of ${event.max}).`);
    case 'compaction-end':
      return line(`History compacted at turn ${event.iteration + 1}.`);
    case 'final-answer':
      return event.depth === 0 ? line('Answer ready.') : undefined;
    case 'error':
      return line(`Error ${event.error.code}: ${preview(event.error.message)}`);
    default:
      return undefined;
  }
}
