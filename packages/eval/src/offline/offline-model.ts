import type { LanguageModel } from '@rlm/protocol';
import { RlmError } from '@rlm/protocol';
import {
  chunkAndAggregate,
  delegateToChild,
  needleFinder,
  type Policy,
  scriptedModel,
} from '@rlm/testkit';
import { RECORD_LABELS } from '../generators/support-records.js';
import type { EvalTask } from '../task/eval-task.js';
import { type FakeServerModel, fakeAnthropicModel } from './fake-anthropic-model.js';
import { referencePolicy } from './reference-policy.js';

/** Policies `testkit:<name>` can name (also in kebab-case: `testkit:needle-finder`). */
export const OFFLINE_POLICIES = [
  'reference',
  'needleFinder',
  'chunkAndAggregate',
  'delegateToChild',
] as const;
export type OfflinePolicyName = (typeof OFFLINE_POLICIES)[number];

/**
 * Nominal prices for offline models (USD per million tokens), so offline reports exercise the
 * cost columns. They are not any provider's prices.
 */
export const OFFLINE_PRICE_PER_MILLION = { input: 1, output: 5 } as const;

/** The context window offline models report, in tokens (small, so truncation shows at modest sizes). */
export const DEFAULT_OFFLINE_CONTEXT_WINDOW = 32_000;

export interface OfflineModelOptions {
  /** The task the model will answer (policies read its metadata, never its answer). */
  task: EvalTask;
  /** What the model serves; for `base` every policy answers with the reference solver (only it reads pasted context). */
  role: 'root' | 'sub' | 'base';
  /** @default DEFAULT_OFFLINE_CONTEXT_WINDOW */
  contextWindow?: number;
  /**
   * How the policy is reached: `in-process` (a `scriptedModel`, nominal prices) or `fake-anthropic`
   * (a fake Anthropic server per model, reached through the real client; close it with `close()`).
   * @default 'in-process'
   */
  transport?: OfflineTransport;
}

/** Ways an offline model reaches its policy. */
export const OFFLINE_TRANSPORTS = ['in-process', 'fake-anthropic'] as const;
export type OfflineTransport = (typeof OFFLINE_TRANSPORTS)[number];

/** Whether a model id names an offline model (`testkit:<policy>`). */
export function isOfflineModelId(id: string): boolean {
  return id.startsWith('testkit:');
}

/**
 * Builds the model behind `testkit:<policy>` for one task: a rule-based policy served by a
 * `scriptedModel` with nominal pricing, or (transport `fake-anthropic`) by a fake Anthropic server.
 *
 * @throws RlmError `cli.usage` naming `--model` for an unknown policy
 */
export function offlineModel(
  id: string,
  {
    task,
    role,
    contextWindow = DEFAULT_OFFLINE_CONTEXT_WINDOW,
    transport = 'in-process',
  }: OfflineModelOptions,
): LanguageModel | FakeServerModel {
  // Kebab-case works too (`testkit:needle-finder`), as shell users tend to write it.
  const name = id
    .slice('testkit:'.length)
    .replace(/-([a-z])/g, (_, letter: string) => letter.toUpperCase());
  if (!(OFFLINE_POLICIES as readonly string[]).includes(name)) {
    throw new RlmError({
      code: 'cli.usage',
      message: `--model: unknown offline policy "${name}" (expected testkit:${OFFLINE_POLICIES.join(', testkit:')})`,
      details: { option: '--model' },
    });
  }
  const policy =
    role === 'base' ? referencePolicy(task) : policyFor(name as OfflinePolicyName, task);
  if (transport === 'fake-anthropic') return fakeAnthropicModel(policy, { contextWindow });
  // A known (nominal) price, so cost budgets work offline as they do against real providers.
  return scriptedModel((request) => policy(request), {
    id: `testkit/${name}`,
    contextWindow,
    pricing: {
      inputPerMTok: OFFLINE_PRICE_PER_MILLION.input,
      outputPerMTok: OFFLINE_PRICE_PER_MILLION.output,
    },
  });
}

function policyFor(name: OfflinePolicyName, task: EvalTask): Policy {
  const pattern =
    typeof task.meta['needlePattern'] === 'string' ? task.meta['needlePattern'] : undefined;
  switch (name) {
    case 'reference':
      return referencePolicy(task);
    case 'needleFinder':
      return needleFinder(pattern === undefined ? {} : { pattern });
    case 'delegateToChild':
      return delegateToChild(pattern === undefined ? {} : { pattern });
    case 'chunkAndAggregate': {
      const label = task.meta['label'];
      return chunkAndAggregate({
        labels: RECORD_LABELS,
        ...(typeof label === 'string' ? { target: label } : {}),
      });
    }
  }
}
