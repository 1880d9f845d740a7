import { type AssemblePromptOptions, assemblePrompt } from './layered/assemble-prompt.js';
import type { LayeredPromptInput } from './layered/layered-prompt-input.js';
import { joinSections } from './prompt-section.js';
import { promptVersion } from './prompt-version.js';
import type { SystemPromptOptions } from './system/system-prompt-options.js';
import { systemPromptSections } from './system/system-prompt-sections.js';

/** Which prompt to report on: RLM system prompt options, or a layered prompt. */
export type PromptReportConfig =
  | SystemPromptOptions
  | ({ layered: LayeredPromptInput } & AssemblePromptOptions);

/** One included part of a prompt and its size. */
export interface PromptReportSection {
  id: string;
  title: string;
  chars: number;
}

/** What a prompt is made of. */
export interface PromptReport {
  kind: 'system' | 'layered';
  /** A one-line description of the configuration. */
  label: string;
  sections: PromptReportSection[];
  /** Length of the whole prompt (sections plus separators). */
  chars: number;
  version: string;
}

function isLayered(
  config: PromptReportConfig,
): config is { layered: LayeredPromptInput } & AssemblePromptOptions {
  return 'layered' in config;
}

/**
 * Lists the sections a configuration includes, their sizes, the total and the version.
 *
 * @throws RlmError the codes of `buildSystemPrompt` or `assemblePrompt`
 * @example
 * promptReport({ depth: 0, maxDepth: 2, mode: 'coordinator' }).sections.map((s) => s.id);
 */
export function promptReport(config: PromptReportConfig): PromptReport {
  if (isLayered(config)) {
    const assembled = assemblePrompt(config.layered, config);
    return {
      kind: 'layered',
      label: `layered prompt${config.compact === true ? ' (compact)' : ''}`,
      sections: assembled.layers.map((layer) => ({
        id: `layer-${layer.id}`,
        title: `${layer.title} (${layer.mutability}${layer.summarised ? ', one-line summary' : ''})`,
        chars: layer.chars,
      })),
      chars: assembled.text.length,
      version: assembled.version,
    };
  }
  const sections = systemPromptSections(config);
  const text = joinSections(sections);
  const flat = config.depth >= config.maxDepth ? ', flat (no REPL)' : '';
  const specialist = config.systemPrompt === undefined ? '' : ', specialist';
  return {
    kind: 'system',
    label: `system prompt: depth ${config.depth} of max ${config.maxDepth}, mode ${config.mode ?? 'solver'}${specialist}${flat}`,
    sections: sections.map(({ id, title, text: sectionText }) => ({
      id,
      title,
      chars: sectionText.length,
    })),
    chars: text.length,
    version: promptVersion(text),
  };
}

/**
 * A plain-text table of `promptReport(config)`, as `rlm prompts show` prints it.
 *
 * @throws RlmError the codes of `buildSystemPrompt` or `assemblePrompt`
 * @example
 * renderPromptReport({ depth: 1, maxDepth: 2 });
 */
export function renderPromptReport(config: PromptReportConfig): string {
  const report = promptReport(config);
  const idWidth = Math.max(7, ...report.sections.map((section) => section.id.length));
  const rows = report.sections.map(
    (section) =>
      `  ${section.id.padEnd(idWidth)}  ${String(section.chars).padStart(6)}  ${section.title}`,
  );
  return [
    `${report.label} · version ${report.version}`,
    `  ${'section'.padEnd(idWidth)}  ${'chars'.padStart(6)}  title`,
    ...rows,
    `  ${'total'.padEnd(idWidth)}  ${String(report.chars).padStart(6)}  (${report.sections.length} sections, separators included)`,
  ].join('\n');
}
