import { readFileSync } from 'node:fs';
import { scriptedModel } from '@rlm/testkit';
import { describe, expect, it } from 'vitest';
import * as defaults from './defaults.js';
import {
  ANTHROPIC_EFFORTS,
  anthropicEffortSchema,
  DEFAULT_ESCALATE_AFTER_ERRORS,
  DEFAULT_MAX_DEPTH,
  DEFAULT_MAX_ITERATIONS,
  DEFAULT_MODEL_ID,
  parseRLMConfig,
} from './index.js';

/** Every module specifier a compiled file imports statically, followed through relative imports. */
function importsReachableFrom(entry: URL): string[] {
  const found = new Set<string>();
  const seen = new Set<string>();
  const visit = (file: URL): void => {
    if (seen.has(file.href)) return;
    seen.add(file.href);
    const source = readFileSync(file, 'utf8');
    for (const match of source.matchAll(
      /^(?:import|export)\s[^;]*?from\s+'([^']+)'|^import\s+'([^']+)'/gm,
    )) {
      const specifier = match[1] ?? match[2] ?? '';
      if (specifier.startsWith('.')) visit(new URL(specifier, file));
      else found.add(specifier);
    }
  };
  visit(entry);
  return [...found];
}

describe('@rlm/executor/defaults', () => {
  it('holds the values the main entry exports and parseRLMConfig and the effort schema apply', () => {
    expect({ ...defaults }).toEqual({
      ANTHROPIC_EFFORTS,
      DEFAULT_ESCALATE_AFTER_ERRORS,
      DEFAULT_MAX_DEPTH,
      DEFAULT_MAX_ITERATIONS,
      DEFAULT_MODEL_ID,
    });
    const config = parseRLMConfig({ model: scriptedModel(() => 'FINAL(1)') });
    expect(config.maxDepth).toBe(DEFAULT_MAX_DEPTH);
    expect(config.maxIterations).toBe(DEFAULT_MAX_ITERATIONS);
    expect(config.escalateAfterErrors).toBe(DEFAULT_ESCALATE_AFTER_ERRORS);
    expect(anthropicEffortSchema.options).toEqual([...ANTHROPIC_EFFORTS]);
  });

  it('loads no package but the zod-free protocol core, so an app can show its defaults without the executor', () => {
    // The built file is what `@rlm/executor/defaults` resolves to (turbo builds before testing).
    // The run defaults are defined once, in the protocol's core entry (which loads no zod).
    expect(importsReachableFrom(new URL('../dist/defaults.js', import.meta.url))).toEqual([
      '@rlm/protocol/core',
    ]);
  });
});
