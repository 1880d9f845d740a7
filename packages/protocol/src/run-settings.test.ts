import { describe, expect, it } from 'vitest';
import { applyCallerChoices, lowerLimits } from './caller-choices.js';
import { runStatusSchema } from './rlm-chat-completion.js';
import { RlmError } from './rlm-error.js';
import { RUN_LIMIT_NAMES, runSettingsSchema } from './run-settings.js';
import {
  END_STATUSES,
  isEndStatus,
  isResumableStatus,
  RESUMABLE_STATUSES,
} from './run-status-lists.js';

describe('run statuses', () => {
  it('lists exactly the statuses of runStatusSchema as end statuses', () => {
    expect([...END_STATUSES].sort()).toEqual([...runStatusSchema.options].sort());
  });

  it('makes every resumable status an end status, and never completed or error', () => {
    for (const status of RESUMABLE_STATUSES) expect(isEndStatus(status)).toBe(true);
    expect(isResumableStatus('completed')).toBe(false);
    expect(isResumableStatus('error')).toBe(false);
    expect(isResumableStatus('max_iterations')).toBe(false);
  });

  it('resumes a stored running run only when its process is known to be gone', () => {
    expect(isResumableStatus('running')).toBe(false);
    expect(isResumableStatus('running', { orphaned: true })).toBe(true);
  });
});

describe('runSettingsSchema', () => {
  it('applies the documented defaults', () => {
    const settings = runSettingsSchema.parse({ model: 'testkit:needle-finder' });
    expect(settings).toEqual({
      model: 'testkit:needle-finder',
      repl: 'javascript',
      mode: 'solver',
      drivers: [],
      limits: {},
      tools: true,
    });
  });

  it('accepts maxSubcalls 0 (no sub-calls at all)', () => {
    const settings = runSettingsSchema.parse({ model: 'm', limits: { maxSubcalls: 0 } });
    expect(settings.limits.maxSubcalls).toBe(0);
  });

  it('names the field of a bad limit', () => {
    const result = runSettingsSchema.safeParse({ model: 'm', limits: { maxTokens: -1 } });
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.path).toEqual(['limits', 'maxTokens']);
  });

  it('takes a cache with the shared scope by default and names a bad cache field', () => {
    const settings = runSettingsSchema.parse({ model: 'm', cache: { store: 'sqlite' } });
    expect(settings.cache).toEqual({ store: 'sqlite', scope: 'shared', includeSampled: false });
    const result = runSettingsSchema.safeParse({ model: 'm', cache: { store: 'redis' } });
    expect(result.error?.issues[0]?.path).toEqual(['cache', 'store']);
    const ttl = runSettingsSchema.safeParse({ model: 'm', cache: { store: 'memory', ttlMs: 0 } });
    expect(ttl.error?.issues[0]?.path).toEqual(['cache', 'ttlMs']);
  });

  it('refuses unknown fields instead of ignoring them', () => {
    expect(runSettingsSchema.safeParse({ model: 'm', baseUrl: 'http://x' }).success).toBe(false);
    expect(runSettingsSchema.safeParse({ model: 'm', limits: { maxTokenz: 1 } }).success).toBe(
      false,
    );
  });
});

describe('applyCallerChoices', () => {
  const base = runSettingsSchema.parse({
    model: 'openai/gpt-5-mini',
    limits: { maxTokens: 1000, maxCostUsd: 2 },
  });
  const policy = { allowedModels: ['anthropic/claude-haiku-4-5'], source: 'rlm_query arguments' };

  it('lets a caller choose an allowed model', () => {
    const settings = applyCallerChoices(base, { model: 'anthropic/claude-haiku-4-5' }, policy);
    expect(settings.model).toBe('anthropic/claude-haiku-4-5');
  });

  it('refuses a model that names an endpoint, listing the allowed ones', () => {
    let error: unknown;
    try {
      applyCallerChoices(base, { model: 'openai-compatible/x@http://evil.example/v1' }, policy);
    } catch (caught) {
      error = caught;
    }
    expect(RlmError.is(error, 'config.invalid')).toBe(true);
    const message = (error as Error).message;
    expect(message).toContain('cannot name an endpoint');
    expect(message).toContain('openai/gpt-5-mini');
    expect(message).toContain('anthropic/claude-haiku-4-5');
  });

  it('refuses any model the operator did not allow', () => {
    expect(() => applyCallerChoices(base, { model: 'openai/gpt-5' }, policy)).toThrow(
      /not among the models the operator allowed/,
    );
  });

  it('only lowers limits: a higher request is capped, an open limit takes the request', () => {
    const settings = applyCallerChoices(
      base,
      { limits: { maxTokens: 50_000, maxCostUsd: 1, maxIterations: 3 } },
      policy,
    );
    expect(settings.limits).toEqual({ maxTokens: 1000, maxCostUsd: 1, maxIterations: 3 });
  });

  it('keeps the operator price and leaves other settings as configured', () => {
    const priced = { ...base, pricing: { inputPerMTok: 1, outputPerMTok: 2 } };
    const settings = applyCallerChoices(priced, { mode: 'coordinator', repl: 'python' }, policy);
    expect(settings.pricing).toEqual({ inputPerMTok: 1, outputPerMTok: 2 });
    expect(settings.mode).toBe('coordinator');
    expect(settings.repl).toBe('python');
  });

  it('lets a caller name an escalation ladder of allowed models', () => {
    const settings = applyCallerChoices(
      base,
      { escalate: ['anthropic/claude-haiku-4-5', 'openai/gpt-5-mini'], escalateAfterErrors: 2 },
      policy,
    );
    expect(settings.escalate).toEqual(['anthropic/claude-haiku-4-5', 'openai/gpt-5-mini']);
    expect(settings.escalateAfterErrors).toBe(2);
  });

  it('refuses an escalation rung the operator did not allow, naming the rung and the allowed', () => {
    let error: unknown;
    try {
      applyCallerChoices(
        base,
        { escalate: ['anthropic/claude-haiku-4-5', 'openai-compatible/x@http://evil.example/v1'] },
        policy,
      );
    } catch (caught) {
      error = caught;
    }
    expect(RlmError.is(error, 'config.invalid')).toBe(true);
    const message = (error as Error).message;
    expect(message).toContain('escalate[1]');
    expect(message).toContain('cannot name an endpoint');
    expect(message).toContain('allowed: openai/gpt-5-mini, anthropic/claude-haiku-4-5');
  });

  it('refuses a driver outside an allowed list', () => {
    expect(() =>
      applyCallerChoices(base, { drivers: ['x'] }, { ...policy, allowedDrivers: ['y'] }),
    ).toThrow(/drivers: x cannot be chosen here \(allowed: y\)/);
  });
});

describe('lowerLimits', () => {
  it('covers every limit the contract has', () => {
    const caps = Object.fromEntries(RUN_LIMIT_NAMES.map((name) => [name, 10]));
    const asked = Object.fromEntries(RUN_LIMIT_NAMES.map((name) => [name, 20]));
    expect(lowerLimits(caps, asked)).toEqual(caps);
  });
});
