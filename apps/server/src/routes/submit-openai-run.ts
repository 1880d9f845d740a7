import { outputFromJsonSchema } from '@rlm/executor';
import { type JsonValue, RlmError } from '@rlm/protocol';
import type { Principal } from '../api-key-store.js';
import { effectiveBudget } from '../effective-budget.js';
import { ownProfile, profileNames } from '../own-profile.js';
import type { SubmittedRun } from '../run-manager.js';
import type { ServerServices } from '../server-services.js';
import { refuseUnservedTools } from './refuse-unserved-tools.js';

/** What an OpenAI-style request (chat completions, responses) asks for, mapped at its edge. */
export interface OpenAiRunRequest {
  /** The profile, named as OpenAI clients name a model. */
  model: string;
  /** The request's `tools`, refused unless the profile's MCP servers serve them. */
  tools: unknown;
  query: string;
  context: JsonValue;
  /** The JSON Schema the answer must match, and the request field it came from (for errors). */
  outputSchema: Record<string, JsonValue> | undefined;
  schemaField: string;
}

/**
 * Submits the run behind an OpenAI-style request, the same way for every such route: the profile
 * named by `model`, `tools` refused unless served, the answer schema checked before the run
 * exists, and the profile's budget within the server's maxima (returned with the run).
 * @throws RlmError `server.not_found` (unknown model), `protocol.invalid_message` (tools),
 *   `config.invalid` (a schema the runtime cannot check)
 */
export async function submitOpenAiRun(
  { config, runs }: Pick<ServerServices, 'config' | 'runs'>,
  principal: Principal,
  request: OpenAiRunRequest,
): Promise<SubmittedRun & { budget: ReturnType<typeof effectiveBudget> }> {
  const profile = ownProfile(config, request.model);
  if (profile === undefined) {
    throw new RlmError({
      code: 'server.not_found',
      message: `The model "${request.model}" does not exist; configured models: ${profileNames(config)}`,
      details: { resource: 'model', id: request.model },
    });
  }
  await refuseUnservedTools(request.tools, { profile, profileName: request.model });
  const { outputSchema } = request;
  // A schema the runtime cannot check is the caller's error: refused before the run exists.
  if (outputSchema !== undefined) {
    outputFromJsonSchema(outputSchema, { source: request.schemaField });
  }
  const budget = effectiveBudget(profile, undefined, config.maxima);
  const submitted = await runs.submit({
    principal,
    kind: 'chat',
    query: request.query,
    inlineContext: request.context,
    profileName: request.model,
    budget,
    ...(outputSchema === undefined ? {} : { outputSchema }),
  });
  return { ...submitted, budget };
}
