import type { ReplLanguage } from '@rlm/protocol';
import type { ModelSpec } from './model-spec.js';

function cell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\s+/g, ' ');
}

/**
 * The table of models the RLM can choose with `{ model }`, or `undefined` when fewer than two exist.
 *
 * @example
 * modelsTable([{ id: 'fast', description: 'cheap reads', default: true }, { id: 'strong' }]);
 */
export function modelsTable(
  models: readonly ModelSpec[],
  repl: ReplLanguage = 'javascript',
): string | undefined {
  if (models.length < 2) return undefined;
  const rows = models.map((model) => {
    const name = model.default === true ? `\`${model.id}\` (default)` : `\`${model.id}\``;
    return `| ${name} | ${cell(model.description ?? '')} |`;
  });
  return [
    '## Models',
    '',
    repl === 'python'
      ? "Pick a model for a sub-call with `model='<id>'`; without it, the default is used."
      : "Pick a model for a sub-call with `{ model: '<id>' }`; without it, the default is used.",
    '',
    '| model | use it for |',
    '| --- | --- |',
    ...rows,
  ].join('\n');
}
