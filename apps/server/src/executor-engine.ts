import {
  type AnthropicEffort,
  createRLM,
  outputFromJsonSchema,
  type RLMConfig,
} from '@rlm/executor';
import { type McpToolSet, mcpTools } from '@rlm/mcp';
import {
  type LanguageModel,
  type ReplLanguage,
  type RLMChatCompletion,
  RlmError,
} from '@rlm/protocol';
import { findTrajectoryHeader, replayingModel, responseReplay } from '@rlm/trace';
import type { RunEngine, RunEngineInput } from './run-engine.js';

/** A profile's settings for its `anthropic/` clients. */
export interface ProfileModelOptions {
  thinking?: { type: 'enabled'; budgetTokens: number };
  effort?: AnthropicEffort;
}

/**
 * Turns a profile's model id into a client (production: `@rlm/executor`'s `resolveModel`).
 * `repl` is the profile's REPL language, which offline `testkit:` policies write code in.
 */
export type ModelResolver = (
  modelId: string,
  options?: ProfileModelOptions & { repl?: ReplLanguage },
) => LanguageModel;

export interface ExecutorEngineOptions {
  resolveModel: ModelResolver;
  /** Sandbox placement; `worker` keeps a spinning block off the server's event loop. @default 'worker' */
  isolation?: 'worker' | 'inline';
}

/**
 * The production `RunEngine`: one `createRLM` per run over `@rlm/executor`, with the server's run
 * id as the root run id, events and trajectory records handed to the server as they happen, the
 * run's capped budget, and the server's run store for a checkpoint after every root turn. A
 * restarted run continues with `rlm.resume` from its latest checkpoint; one killed before its first
 * checkpoint runs again from its first turn (`rerun`), its recorded model responses answering the
 * same requests again. Either way the executor marks the restart itself (`run-resume`, no second
 * header), so what it emits is stored as it is. An agent turn's layered system prompt is the
 * RLM's `systemPromptPrefix`: root-model calls get it before the REPL instructions (sub-calls keep
 * their plain prompts), and the trajectory records the prompt as sent.
 */
export function createExecutorEngine({
  resolveModel,
  isolation = 'worker',
}: ExecutorEngineOptions): RunEngine {
  return {
    async run(input) {
      const { model, subModel } = runModels(input, resolveModel);
      const output =
        input.outputSchema === undefined
          ? undefined
          : outputFromJsonSchema(input.outputSchema, { source: 'the run output schema' });
      // The profile's MCP servers live as long as this run: opened here, closed when it ends.
      const mcp = await openProfileMcp(input);
      try {
        return asText(await runWith(input, { model, subModel, output, mcp }));
      } finally {
        await Promise.all(mcp.map((set) => set.close()));
      }
    },
  };

  async function runWith(
    input: RunEngineInput,
    {
      model,
      subModel,
      output,
      mcp,
    }: {
      model: LanguageModel;
      subModel: LanguageModel;
      output: RLMConfig['output'];
      mcp: readonly McpToolSet[];
    },
  ) {
    const { budget } = input;
    const rlm = createRLM({
      model,
      subModel,
      maxDepth: budget.maxDepth,
      maxIterations: budget.maxIterations,
      repl: input.profile.repl,
      budget: executorBudget(budget, [model, subModel]),
      tools: mergeTools(input.tools ?? {}, mcp),
      trajectory: {
        write: input.onTrajectory,
        async close() {},
      },
      onEvent: input.onEvent,
      ...(input.runStore === undefined ? {} : { runStore: input.runStore }),
      ...(input.systemPrompt === undefined ? {} : { systemPromptPrefix: input.systemPrompt }),
      generateId: () => input.runId,
      isolation,
    });
    const { context, query, signal } = input;
    if (input.resume === true) {
      try {
        return await rlm.resume(input.runId, { context, signal, output });
      } catch (error) {
        // A checkpoint this version cannot read (or none): start over with the replay. It fails
        // before the run goes on, so nothing was emitted twice.
        if (!RlmError.is(error, 'executor.no_checkpoint')) throw error;
      }
    }
    // The earlier attempt started the run (its header and run-start are stored): go on with it.
    const rerun = findTrajectoryHeader(input.recorded ?? []) !== undefined;
    return rlm.completion(context, { query, signal, rerun, output });
  }
}

/** A typed answer as its JSON text: the server stores and returns answers as text. */
function asText(
  result: Omit<RLMChatCompletion, 'answer'> & { answer: unknown },
): RLMChatCompletion {
  const { answer } = result;
  return {
    ...result,
    answer: answer === null || typeof answer === 'string' ? answer : JSON.stringify(answer),
  };
}

/** Connects to the profile's MCP servers in order; on a failure closes those already open. */
async function openProfileMcp(input: RunEngineInput): Promise<McpToolSet[]> {
  const sets: McpToolSet[] = [];
  try {
    for (const server of input.profile.mcp ?? [])
      sets.push(await mcpTools(server, { signal: input.signal }));
  } catch (error) {
    await Promise.all(sets.map((set) => set.close()));
    throw error;
  }
  return sets;
}

/**
 * The run's tools (an agent's) and its MCP tools in one record.
 * @throws RlmError `config.invalid` when two of them have one name
 */
function mergeTools(
  own: NonNullable<RunEngineInput['tools']>,
  mcp: readonly McpToolSet[],
): NonNullable<RLMConfig['tools']> {
  const tools: NonNullable<RLMConfig['tools']> = { ...own };
  for (const set of mcp) {
    for (const [name, tool] of Object.entries(set.tools)) {
      if (Object.hasOwn(tools, name)) {
        const issue = `mcp: the tool ${name} is defined twice (two servers, or a server and the run's own tools)`;
        throw new RlmError({
          code: 'config.invalid',
          message: `Invalid profile: ${issue}`,
          details: { source: 'profile', issues: [issue] },
        });
      }
      tools[name] = tool;
    }
  }
  return tools;
}

/**
 * The run's budget as the executor takes it. Dollars are capped only when every model has a
 * price (or reports its cost, like OpenRouter): on a model without one (a local server) the
 * executor would refuse the run, and the cap could not be enforced anyway.
 */
function executorBudget(
  budget: RunEngineInput['budget'],
  models: readonly LanguageModel[],
): NonNullable<RLMConfig['budget']> {
  const priced = models.every((model) => model.pricing !== undefined || model.reportsCost === true);
  return {
    maxTokens: budget.maxTokens,
    ...(priced ? { maxCostUsd: budget.maxCostUsd } : {}),
    maxWallTimeMs: budget.maxWallTimeMs,
    maxSubcalls: budget.maxSubcalls,
  };
}

/**
 * The run's root and sub-model clients. On a restart, responses recorded before it answer the
 * same requests again (turns run again after a missing checkpoint, or the interrupted turn's call
 * when it had been answered), so those calls are not paid twice.
 */
function runModels(
  input: RunEngineInput,
  resolveModel: ModelResolver,
): { model: LanguageModel; subModel: LanguageModel } {
  const replay = input.recorded === undefined ? undefined : responseReplay(input.recorded);
  const { thinkingBudget, effort } = input.profile;
  const options: ProfileModelOptions = {
    ...(thinkingBudget === undefined
      ? {}
      : { thinking: { type: 'enabled', budgetTokens: thinkingBudget } }),
    ...(effort === undefined ? {} : { effort }),
  };
  const live = (id: string) => {
    const client = resolveModel(id, {
      ...(id.startsWith('anthropic/') ? options : {}),
      repl: input.profile.repl,
    });
    return replay === undefined ? client : replayingModel(client, replay);
  };
  const model = live(input.profile.model);
  const subModel = input.profile.subModel === undefined ? model : live(input.profile.subModel);
  return { model, subModel };
}
