import type { LanguageModel, ReplLanguage } from '@rlm/protocol';
import { RlmError } from '@rlm/protocol';
import {
  type ExtraOfflinePolicies,
  type Policy,
  scriptedModel,
  OFFLINE_POLICIES as TESTKIT_POLICIES,
} from '@rlm/testkit';
import { RECORD_LABELS } from '../generators/support-records.js';
import type { EvalTask } from '../task/eval-task.js';
import { type FakeServerModel, fakeAnthropicModel } from './fake-anthropic-model.js';
import { referencePolicy } from './reference-policy.js';

/**
 * Policies `testkit:<name>` can name (also in kebab-case: `testkit:needle-finder`): @rlm/testkit's
 * one list, which every door accepts, and `reference`, which knows eval's benchmarks (a test checks
 * the two lists agree).
 */
export const OFFLINE_POLICIES = [
  'reference',
  'needleFinder',
  'needleFinderGrep',
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
  /** The REPL language the policy writes code in (an RLM's `repl`). @default 'javascript' */
  repl?: ReplLanguage;
}

/** Ways an offline model reaches its policy. */
export const OFFLINE_TRANSPORTS = ['in-process', 'fake-anthropic'] as const;
export type OfflineTransport = (typeof OFFLINE_TRANSPORTS)[number];

/** Whether a model id names an offline model (`testkit:<policy>`). */
export function isOfflineModelId(id: string): boolean {
  return id.startsWith('testkit:');
}

/** `needle-finder` → `needleFinder`. */
const toCamel = (name: string) =>
  name.replace(/-([a-z])/g, (_, letter: string) => letter.toUpperCase());
/** `needleFinder` → `needle-finder`, as the command line writes it. */
const toKebab = (name: string) => name.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`);

/**
 * The policy an offline model id names: `testkit:needle-finder` and `testkit:needleFinder` both
 * give `needleFinder`. The one list `rlm run` and `rlm eval` both accept.
 *
 * @throws RlmError `model.unknown_provider` naming the known policies
 */
export function offlinePolicyName(id: string): OfflinePolicyName {
  const wanted = id.startsWith('testkit:') ? id.slice('testkit:'.length) : id;
  const name = toCamel(wanted);
  if ((OFFLINE_POLICIES as readonly string[]).includes(name)) return name as OfflinePolicyName;
  throw new RlmError({
    code: 'model.unknown_provider',
    message: `Unknown testkit policy "${wanted}" (known: ${OFFLINE_POLICIES.map(toKebab).join(', ')})`,
    details: { modelId: id },
  });
}

/**
 * The policy behind an offline model. With a `task` (rlm eval) it is tuned to the task: the
 * needle pattern and record labels of its benchmark, and `reference` solves it from its metadata;
 * without one (a run outside eval, such as `rlm run`) the testkit policies keep their defaults and
 * `reference` recognises a built-in benchmark's question in the conversation. The policy writes
 * code in `repl`'s language.
 */
export function offlinePolicy(
  name: OfflinePolicyName,
  { task, repl: language = 'javascript' }: { task?: EvalTask; repl?: ReplLanguage } = {},
): Policy {
  if (name === 'reference') return referencePolicy(task, { language });
  const meta = task?.meta ?? {};
  const pattern = typeof meta['needlePattern'] === 'string' ? meta['needlePattern'] : undefined;
  const label = meta['label'];
  // Tuned to the task: its needle pattern, its record labels and the one to count.
  const tuned =
    task === undefined
      ? {}
      : {
          pattern,
          ...(name === 'chunkAndAggregate'
            ? { labels: RECORD_LABELS, target: typeof label === 'string' ? label : undefined }
            : {}),
        };
  return TESTKIT_POLICIES[toKebab(name) as keyof typeof TESTKIT_POLICIES]({
    repl: language,
    ...tuned,
  });
}

/**
 * The policies eval adds to @rlm/testkit's list for doors outside an eval (`rlm run --model
 * testkit:reference`): `reference`, which recognises a built-in benchmark's question.
 */
export const EVAL_OFFLINE_POLICIES: ExtraOfflinePolicies = {
  reference: ({ repl }) => referencePolicy(undefined, { language: repl ?? 'javascript' }),
};

/**
 * Builds the model behind `testkit:<policy>` for one task: a rule-based policy served by a
 * `scriptedModel` with nominal pricing, or (transport `fake-anthropic`) by a fake Anthropic server.
 *
 * @throws RlmError `model.unknown_provider` naming the known policies
 */
export function offlineModel(
  id: string,
  {
    task,
    role,
    contextWindow = DEFAULT_OFFLINE_CONTEXT_WINDOW,
    transport = 'in-process',
    repl = 'javascript',
  }: OfflineModelOptions,
): LanguageModel | FakeServerModel {
  const name = offlinePolicyName(id);
  const policy = role === 'base' ? referencePolicy(task) : offlinePolicy(name, { task, repl });
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
