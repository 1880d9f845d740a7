import { type LanguageModel, type ReplLanguage, RlmError } from '@rlm/protocol';
import { type Policy, policies, scriptedModel } from '@rlm/testkit';

/** The offline policies a profile can name as `testkit:<policy>` (kebab-case). */
export const OFFLINE_POLICIES: Readonly<Record<string, (language: ReplLanguage) => Policy>> = {
  'needle-finder': (language) => policies.needleFinder({ language }),
  'needle-finder-grep': (language) => policies.needleFinder({ useGrep: true, language }),
  'delegate-to-child': (language) => policies.delegateToChild({ language }),
};

/** Whether a profile's model id names an offline `@rlm/testkit` policy. */
export function isOfflineModelId(id: string): boolean {
  return id.startsWith('testkit:');
}

/**
 * A model that needs no key and no network: a rule-based `@rlm/testkit` policy that writes real
 * REPL code (the needle finder answers "the magic number is N" questions), so the server can be
 * tried end to end offline. Each call is answered by a fresh scripted model, so nothing grows
 * with the number of requests. The policy writes code in `repl`, the profile's REPL language.
 *
 * @throws RlmError `model.unknown_provider` naming the policies for an unknown one
 */
export function offlineModel(
  id: string,
  { repl = 'javascript' }: { repl?: ReplLanguage } = {},
): LanguageModel {
  const name = id.slice('testkit:'.length);
  const make = Object.hasOwn(OFFLINE_POLICIES, name) ? OFFLINE_POLICIES[name] : undefined;
  if (make === undefined) {
    throw new RlmError({
      code: 'model.unknown_provider',
      message: `Unknown offline model "${id}"; expected one of ${Object.keys(OFFLINE_POLICIES)
        .map((policy) => `testkit:${policy}`)
        .join(', ')}`,
      details: { modelId: id },
    });
  }
  const policy = make(repl);
  return {
    id: `testkit/${name}`,
    contextWindow: 200_000,
    complete: (request) =>
      scriptedModel((input) => policy(input), { id: `testkit/${name}` }).complete(request),
  };
}
