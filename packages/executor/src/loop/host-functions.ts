import { type JsonValue, replLanguageSchema } from '@rlm/protocol';
import pLimit from 'p-limit';
import { z } from 'zod';
import type { ToolDefinition } from '../config/tool-definition.js';
import type { RunNode } from '../run/run-node.js';
import { camelCaseKeys } from './camel-case-keys.js';
import type { SubCallOutcome } from './sub-call-outcome.js';
import type { CallSlot, SubCallRunner } from './sub-call-runner.js';
import { allowedTools } from './system-prompts.js';

const llmOptionsSchema = z.object({ model: z.string().optional() }).nullish();
const rlmOptionsSchema = z.preprocess(
  camelCaseKeys,
  z
    .object({
      model: z.string().optional(),
      systemPrompt: z.string().optional(),
      context: z.custom<JsonValue>(() => true).optional(),
      /** This child's REPL language, when it differs from its caller's. */
      repl: replLanguageSchema.optional(),
    })
    .nullish(),
);
type RlmOptions = NonNullable<z.infer<typeof rlmOptionsSchema>>;

const rlmItemSchema = z.union([
  z.string(),
  z.preprocess(
    camelCaseKeys,
    z.object({
      prompt: z.string(),
      model: z.string().optional(),
      systemPrompt: z.string().optional(),
      context: z.custom<JsonValue>(() => true).optional(),
      repl: replLanguageSchema.optional(),
    }),
  ),
]);

function argumentError(name: string, usage: string, error: z.ZodError): string {
  const issue = error.issues[0];
  const where =
    issue === undefined ? '' : ` (argument ${issue.path.map(String).join('.')}: ${issue.message})`;
  return `Error: ${name} expects ${usage}${where}`;
}

function parseArgs<T>(
  schema: z.ZodType<T>,
  args: JsonValue[],
  { name, usage }: { name: string; usage: string },
): { ok: true; value: T } | { ok: false; error: string } {
  const parsed = schema.safeParse(args);
  return parsed.success
    ? { ok: true, value: parsed.data }
    : { ok: false, error: argumentError(name, usage, parsed.error) };
}

function textOrRefusal(outcome: SubCallOutcome): string {
  if (outcome.refusal !== undefined) throw outcome.refusal;
  return outcome.text;
}

/** The host functions of one sandbox, bound to its invocation. */
export function hostFunctions(
  node: RunNode,
  runner: SubCallRunner,
  {
    toolNames,
    extra = {},
  }: {
    /** The configured tools this invocation may call; all when absent. */
    toolNames?: readonly string[] | undefined;
    /** More functions (the dispatcher's verbs), added last. */
    extra?: Record<string, ToolDefinition>;
  } = {},
): Record<string, ToolDefinition> {
  const { config } = node.tree;
  const limit = pLimit(config.maxConcurrency);
  // A single call the budget has no room for rejects the guest's promise; a batch never fails
  // as a whole, so there the refusal is the slot's "Error: …" string.
  const llm = async (
    prompt: string,
    options: { model?: string | undefined },
    signal: AbortSignal,
  ) => textOrRefusal(await runner.llm(prompt, options, signal));
  const llmSlot = async (
    prompt: string,
    options: { model?: string | undefined },
    signal: AbortSignal,
  ) => (await runner.llm(prompt, options, signal)).text;
  const rlm = async (prompt: string, options: RlmOptions, slot: CallSlot) =>
    textOrRefusal(await runner.rlm(prompt, options, slot));
  const rlmSlot = async (prompt: string, options: RlmOptions, slot: CallSlot) =>
    (await runner.rlm(prompt, options, slot)).text;

  const functions: Record<string, ToolDefinition> = {
    llm_query: {
      description: 'llm_query(prompt, { model }?) → Promise<string>: one sub-model call, no REPL.',
      async call(args, { signal }) {
        const parsed = parseArgs(z.tuple([z.string(), llmOptionsSchema.optional()]), args, {
          name: 'llm_query',
          usage: '(prompt: string, { model }?)',
        });
        if (!parsed.ok) return parsed.error;
        const [prompt, options] = parsed.value;
        return llm(prompt, options ?? {}, signal);
      },
    },
    llm_query_batched: {
      description:
        'llm_query_batched(prompts, { model }?) → Promise<string[]>: concurrent sub-model calls, order kept; a failed slot is an "Error: …" string.',
      async call(args, { signal }) {
        const parsed = parseArgs(
          z.tuple([z.array(z.string()), llmOptionsSchema.optional()]),
          args,
          {
            name: 'llm_query_batched',
            usage: '(prompts: string[], { model }?)',
          },
        );
        if (!parsed.ok) return parsed.error;
        const [prompts, options] = parsed.value;
        return Promise.all(
          prompts.map((prompt) => limit(() => llmSlot(prompt, options ?? {}, signal))),
        );
      },
    },
    rlm_query: {
      description:
        'rlm_query(prompt, { context, systemPrompt, model }?) → Promise<string>: a child RLM with its own REPL.',
      async call(args, { signal }) {
        const parsed = parseArgs(z.tuple([z.string(), rlmOptionsSchema.optional()]), args, {
          name: 'rlm_query',
          usage: '(prompt: string, { context, systemPrompt, model }?)',
        });
        if (!parsed.ok) return parsed.error;
        const [prompt, options] = parsed.value;
        return rlm(prompt, options ?? {}, { signal, shareCount: 1 });
      },
    },
    rlm_query_batched: {
      description:
        'rlm_query_batched(prompts, { context, systemPrompt, model }?) → Promise<string[]>: child RLMs with bounded concurrency, order kept.',
      async call(args, { signal }) {
        const parsed = parseArgs(
          z.tuple([z.array(rlmItemSchema), rlmOptionsSchema.optional()]),
          args,
          {
            name: 'rlm_query_batched',
            usage: '(prompts: (string | { prompt, context?, systemPrompt?, model? })[], options?)',
          },
        );
        if (!parsed.ok) return parsed.error;
        const [items, shared] = parsed.value;
        const shareCount = Math.min(items.length, config.maxConcurrency);
        return Promise.all(
          items.map((item) =>
            limit(() => {
              const { prompt, ...own } = typeof item === 'string' ? { prompt: item } : item;
              return rlmSlot(prompt, { ...shared, ...own }, { signal, shareCount });
            }),
          ),
        );
      },
    },
  };
  for (const [name, tool] of allowedTools(config, toolNames)) {
    functions[name] = {
      description: tool.description,
      call: (args, { signal }) =>
        tool.call(args, { signal: AbortSignal.any([signal, node.scope.signal]) }),
    };
  }
  return { ...functions, ...extra };
}
