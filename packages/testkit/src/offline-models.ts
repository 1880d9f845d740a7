import {
  definedEntries,
  type LanguageModel,
  type ModelPricing,
  type ReplLanguage,
  RlmError,
} from '@rlm/protocol';
import { chunkAndAggregate } from './policies/chunk-and-aggregate.js';
import { delegateToChild } from './policies/delegate-to-child.js';
import { needleFinder } from './policies/needle-finder.js';
import type { Policy } from './policies/policy.js';
import { scriptedModel } from './scripted-model.js';

/** The prefix of offline model ids: `testkit:needle-finder` runs that policy in-process. */
export const OFFLINE_MODEL_PREFIX = 'testkit:';

/** What an offline policy is built with: the REPL language it writes code in, and a task's hints. */
export interface OfflinePolicyOptions {
  /** @default 'javascript' */
  repl?: ReplLanguage | undefined;
  /** The needle's pattern, when a task knows it (`needle-finder`, `delegate-to-child`). */
  pattern?: string | undefined;
  /** Record labels and the one to count (`chunk-and-aggregate`). */
  labels?: Readonly<Record<string, readonly string[]>> | undefined;
  target?: string | undefined;
}

/**
 * The policies every door accepts as `testkit:<name>`: `rlm run`, `rlm eval`, `rlm mcp`, server
 * profiles. One list, so an id that works in one place works in all.
 */
export const OFFLINE_POLICIES = {
  'needle-finder': ({ repl, pattern }: OfflinePolicyOptions) =>
    needleFinder(definedEntries({ language: repl ?? 'javascript', pattern })),
  'needle-finder-grep': ({ repl, pattern }: OfflinePolicyOptions) =>
    needleFinder(definedEntries({ language: repl ?? 'javascript', pattern, useGrep: true })),
  'chunk-and-aggregate': ({ repl, labels, target }: OfflinePolicyOptions) =>
    chunkAndAggregate(definedEntries({ language: repl ?? 'javascript', labels, target })),
  'delegate-to-child': ({ repl, pattern }: OfflinePolicyOptions) =>
    delegateToChild(definedEntries({ language: repl ?? 'javascript', pattern })),
} as const satisfies Record<string, (options: OfflinePolicyOptions) => Policy>;

/** A policy's name in kebab-case (`needle-finder`). */
export type OfflinePolicyName = keyof typeof OFFLINE_POLICIES;

/** Whether a model id names an offline policy (`testkit:<policy>`). */
export function isOfflineModelId(id: string): boolean {
  return id.startsWith(OFFLINE_MODEL_PREFIX);
}

/** `needleFinder` → `needle-finder`; ids may be written either way. */
const toKebab = (name: string) => name.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`);

/** Policies a door adds to the list (eval's `reference`, which knows its benchmarks), by kebab name. */
export type ExtraOfflinePolicies = Readonly<
  Record<string, (options: OfflinePolicyOptions) => Policy>
>;

/** The kebab-case name an id gives (`testkit:needle-finder` or `testkit:needleFinder`). */
function policyNameOf(id: string): string {
  return toKebab(isOfflineModelId(id) ? id.slice(OFFLINE_MODEL_PREFIX.length) : id);
}

/** The policy name an id gives (`testkit:needle-finder` or `testkit:needleFinder`), or undefined. */
export function findOfflinePolicyName(id: string): OfflinePolicyName | undefined {
  const name = policyNameOf(id);
  return Object.hasOwn(OFFLINE_POLICIES, name) ? (name as OfflinePolicyName) : undefined;
}

/** The error for an offline id naming no known policy; it lists them (and any `extra` names). */
export function unknownOfflinePolicy(id: string, extra: readonly string[] = []): RlmError {
  const known = [...new Set([...extra, ...Object.keys(OFFLINE_POLICIES)])].map(
    (name) => `${OFFLINE_MODEL_PREFIX}${name}`,
  );
  return new RlmError({
    code: 'model.unknown_provider',
    message: `Unknown offline model "${id}"; expected one of ${known.join(', ')}`,
    details: { modelId: id },
  });
}

export interface OfflineModelOptions extends OfflinePolicyOptions {
  /** Policies on top of the built-in list (their names are listed in errors too). */
  extraPolicies?: ExtraOfflinePolicies | undefined;
  /** A price to report (eval's nominal prices); offline calls cost nothing by default. */
  pricing?: ModelPricing | undefined;
  /** @default 200_000 */
  contextWindow?: number | undefined;
}

/**
 * The model behind `testkit:<policy>`: a rule-based policy that writes real REPL code and answers
 * its own sub-calls, needing no key and no network. Each call is answered by a fresh scripted
 * model, so nothing grows with the number of requests (a server may serve it for days). A price of
 * zero by default, so cost caps work offline too.
 *
 * @throws RlmError `model.unknown_provider` naming the known policies
 */
export function offlineModel(id: string, options: OfflineModelOptions = {}): LanguageModel {
  const {
    pricing = { inputPerMTok: 0, outputPerMTok: 0 },
    contextWindow = 200_000,
    extraPolicies = {},
    ...policyOptions
  } = options;
  const name = policyNameOf(id);
  const make = Object.hasOwn(extraPolicies, name)
    ? extraPolicies[name]
    : Object.hasOwn(OFFLINE_POLICIES, name)
      ? OFFLINE_POLICIES[name as OfflinePolicyName]
      : undefined;
  if (make === undefined) throw unknownOfflinePolicy(id, Object.keys(extraPolicies));
  const policy = make(policyOptions);
  const modelId = `testkit/${name}`;
  return {
    id: modelId,
    contextWindow,
    pricing,
    complete: (request) =>
      scriptedModel((input) => policy(input), { id: modelId, contextWindow, pricing }).complete(
        request,
      ),
  };
}

/**
 * A model resolver that answers `testkit:<policy>` ids offline (in the run's REPL language, at the
 * run's price when it has one) and hands every other id to `resolve`: the one offline resolver
 * every door uses.
 */
export function withOfflineModels<
  TOptions extends { repl?: ReplLanguage | undefined; pricing?: ModelPricing | undefined },
>(
  resolve: (id: string, options: TOptions) => LanguageModel,
  offline: Omit<OfflineModelOptions, 'repl'> = {},
): (id: string, options: TOptions) => LanguageModel {
  return (id, options) =>
    isOfflineModelId(id)
      ? offlineModel(id, {
          ...offline,
          repl: options.repl,
          ...(options.pricing === undefined ? {} : { pricing: options.pricing }),
        })
      : resolve(id, options);
}
