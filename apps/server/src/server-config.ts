import { join } from 'node:path';
import { ANTHROPIC_EFFORTS, DEFAULT_MAX_DEPTH, DEFAULT_MODEL_ID } from '@rlm/executor/defaults';
import { mcpServerSpecSchema, parseMcpCommandLine, type ResolvedMcpServerSpec } from '@rlm/mcp';
import {
  describeIssues,
  RlmError,
  replLanguageSchema,
  runCacheSchema,
  runLimitsSchema,
  runModeSchema,
} from '@rlm/protocol';
import { prettifyError, z } from 'zod';
import { defaultDataDir } from './default-data-dir.js';

/** An MCP server of a profile: `{ command, args?, env?, cwd? }`, `{ url, headers? }` or a command line. */
const profileMcpServerSchema = z
  .union([z.string(), z.record(z.string(), z.unknown())], {
    error: 'expected a command line or { command, args?, env?, cwd? } or { url, headers? }',
  })
  .transform((value, context): ResolvedMcpServerSpec => {
    if (typeof value === 'string') {
      try {
        return { ...parseMcpCommandLine(value) };
      } catch (error) {
        const message = RlmError.is(error) ? error.message : String(error);
        context.addIssue({ code: 'custom', message });
        return z.NEVER;
      }
    }
    const parsed = mcpServerSpecSchema.safeParse(value);
    if (parsed.success) return parsed.data;
    for (const issue of parsed.error.issues) {
      context.addIssue({ code: 'custom', message: issue.message, path: [...issue.path] });
    }
    return z.NEVER;
  });

/** The run contract's limits, each declared once there (`runLimitsSchema`). */
const limit = runLimitsSchema.shape;

/** One model profile: what `model` in a request (or `profile` in a run) selects. */
export const modelProfileSchema = z
  .object({
    /** Root model id, `provider/model`. */
    model: z.string().min(1),
    /** Model for `llm_query` sub-calls; defaults to `model`. */
    subModel: z.string().min(1).optional(),
    /** Coordinator profiles: the model background tasks run on; defaults to `subModel`, else `model`. */
    taskModel: z.string().min(1).optional(),
    /**
     * The escalation ladder, cheapest first: a child run stuck on errors, or out of turns without
     * an answer, runs again once on the next model up, inside the run's budget.
     */
    escalate: z.array(z.string().min(1)).min(1, 'escalate names at least one model').optional(),
    /** With `escalate`: failing turns in a row after which a child escalates. @default 3 */
    escalateAfterErrors: z.number().int().positive().optional(),
    maxIterations: limit.maxIterations.unwrap().default(20),
    maxDepth: limit.maxDepth.unwrap().default(DEFAULT_MAX_DEPTH),
    /**
     * MCP servers whose tools every run of this profile gets in its REPL. Each run connects when it
     * starts and closes the connections when it ends.
     */
    mcp: z.array(profileMcpServerSchema).default([]),
    /**
     * The language the model writes in the REPL: `javascript`, or `python` (Pyodide; needs
     * `@rlm/sandbox-python` installed next to the server, checked and prewarmed at start-up).
     */
    repl: replLanguageSchema.default('javascript'),
    /**
     * How the root works: `solver` (the default) or `coordinator` (background tasks with
     * `delegate`; needs `maxDepth` of 2 or more, since tasks are child RLMs).
     */
    mode: runModeSchema.default('solver'),
    /** Built-in prompt drivers appended to the root prompt, by name (`rlm prompts drivers` lists them). */
    drivers: z.array(z.string().min(1)).default([]),
    /** `anthropic/` models: extended thinking with this many budget tokens, billed as output. */
    thinkingBudget: z.number().int().min(1024).optional(),
    /** `anthropic/` models: how much effort the model spends (`output_config.effort`). */
    effort: z.enum(ANTHROPIC_EFFORTS).optional(),
    /**
     * The sub-call cache for this profile's runs: `store` is the server's own database (`sqlite`
     * or `postgres`, shared by replicas) or `memory` (this process, until it stops).
     */
    cache: runCacheSchema.optional(),
    /**
     * Agents on this profile: `full` sends every layer of the layered prompt in full; `compact`
     * keeps layers 0, 1, 5 and 10 in full, summarises each other layer in one line and shows fewer
     * exchanges per sender (for small context windows). Runs without an agent ignore it.
     */
    promptStyle: z.enum(['full', 'compact']).default('full'),
  })
  .superRefine((profile, context) => {
    if (profile.mode === 'coordinator' && profile.maxDepth < 2) {
      context.addIssue({
        code: 'custom',
        path: ['maxDepth'],
        message: 'a coordinator profile needs maxDepth of 2 or more (its tasks are child RLMs)',
      });
    }
    if (profile.thinkingBudget === undefined && profile.effort === undefined) return;
    const ids = [profile.model, profile.subModel ?? profile.model];
    if (ids.some((id) => id.startsWith('anthropic/'))) return;
    context.addIssue({
      code: 'custom',
      path: [profile.thinkingBudget === undefined ? 'effort' : 'thinkingBudget'],
      message: 'thinkingBudget and effort apply to anthropic/ models; this profile has none',
    });
  });
export type ModelProfile = z.infer<typeof modelProfileSchema>;

/** Upper bounds no request can exceed; a request asking for more is capped, never rejected. */
export const runMaximaSchema = z.object({
  maxIterations: limit.maxIterations.unwrap().default(50),
  maxDepth: limit.maxDepth.unwrap().default(3),
  maxTokens: limit.maxTokens.unwrap().default(2_000_000),
  maxCostUsd: limit.maxCostUsd.unwrap().default(5),
  maxWallTimeMs: limit.maxWallTimeMs.unwrap().default(30 * 60_000),
  maxSubcalls: limit.maxSubcalls.unwrap().default(500),
});
export type RunMaxima = z.infer<typeof runMaximaSchema>;

export const serverLimitsSchema = z.object({
  /** Largest JSON request body. */
  bodyBytes: z
    .number()
    .int()
    .positive()
    .default(1024 * 1024),
  /** Largest context, inline or uploaded. */
  contextBytes: z
    .number()
    .int()
    .positive()
    .default(64 * 1024 * 1024),
  /** Requests per minute per API key (token bucket, bursts up to this many). */
  requestsPerMinute: z.number().int().positive().default(120),
  /** Failed authentications per client address per minute before it gets 429 (token bucket). */
  authFailuresPerMinute: z.number().int().positive().default(30),
  /** Runs a single key may have queued or running at once. */
  concurrentRunsPerKey: z.number().int().positive().default(8),
  /** Runs executing at once across the whole server. */
  globalConcurrency: z.number().int().positive().default(4),
  /** Runs waiting for a slot; beyond this, new runs get 429. */
  queueSize: z.number().int().nonnegative().default(256),
});
export type ServerLimits = z.infer<typeof serverLimitsSchema>;

/** Lease and polling settings of replicas sharing one Postgres. */
export const clusterSettingsSchema = z
  .object({
    /** A dead replica's runs are taken over this long after its last renewal. */
    leaseMs: z.number().int().min(1_000).default(30_000),
    /** How often a replica renews the leases of its runs. */
    heartbeatMs: z.number().int().min(100).default(5_000),
    /** How often an idle replica looks at the queue and for lapsed leases unprompted. */
    pollMs: z.number().int().min(50).default(1_000),
  })
  .refine((value) => value.heartbeatMs * 2 <= value.leaseMs, {
    message:
      'heartbeatMs must be at most half of leaseMs, so one missed renewal does not lose a run',
    path: ['heartbeatMs'],
  });

/** The whole server configuration: from a JSON file, then env overrides, validated here. */
export const serverConfigSchema = z.object({
  host: z.string().default('127.0.0.1'),
  port: z.number().int().min(0).max(65_535).default(8787),
  /** Where runs, events, conversations and layers live. @default `<dataDir>/rlm-server.db` */
  store: z
    .discriminatedUnion('kind', [
      z.object({ kind: z.literal('sqlite'), path: z.string().min(1) }),
      z.object({ kind: z.literal('memory') }),
      z.object({
        kind: z.literal('postgres'),
        url: z.string().regex(/^postgres(ql)?:\/\//, 'expected a postgres:// or postgresql:// URL'),
      }),
    ])
    .optional(),
  /**
   * Replicas on Postgres (`store.kind: "postgres"`): how long a claim on a run lasts unless
   * renewed, how often it is renewed, how often an idle replica looks for work.
   */
  cluster: clusterSettingsSchema.default(clusterSettingsSchema.parse({})),
  /**
   * Directory for the SQLite file, uploaded contexts and the API key file. The default is the
   * user's data directory (`defaultDataDir()`), never the working directory.
   */
  dataDir: z
    .string()
    .min(1)
    .default(() => defaultDataDir()),
  profiles: z
    .record(
      z
        .string()
        .regex(/^[A-Za-z0-9._:/-]+$/)
        .refine((name) => !['__proto__', 'constructor', 'prototype'].includes(name), {
          message: 'a profile may not be named __proto__, constructor or prototype',
        }),
      modelProfileSchema,
    )
    .default({ default: modelProfileSchema.parse({ model: DEFAULT_MODEL_ID }) }),
  defaultProfile: z.string().default('default'),
  limits: serverLimitsSchema.default(serverLimitsSchema.parse({})),
  maxima: runMaximaSchema.default(runMaximaSchema.parse({})),
  corsOrigins: z.array(z.string()).default([]),
  /** `/mcp`: the RLM as MCP tools over Streamable HTTP. */
  mcp: z
    .object({
      /**
       * Server directories `rlm_query` and `context_load` may read by path; none by default (a
       * client's roots name its own disk, so they are never used here).
       */
      roots: z.array(z.string().min(1)).default([]),
      /** An MCP session unused this long is ended and its sandbox freed. */
      idleTimeoutMs: z
        .number()
        .int()
        .positive()
        .default(15 * 60_000),
      /** MCP sessions open at once per API key; beyond it, a new one gets 429. */
      sessionsPerKey: z.number().int().positive().default(8),
      /** MCP sessions open at once on the whole server, every key together. */
      maxSessions: z.number().int().positive().default(16),
      /** The memory cap of one session's sandbox (WebAssembly heap), in bytes. */
      sessionMemoryBytes: z
        .number()
        .int()
        .min(16 * 1024 * 1024)
        .default(256 * 1024 * 1024),
      /**
       * A session's sandbox unused this long is freed (its variables are lost, the context is
       * kept; the next block says so), so idle sessions hold no sandbox memory.
       */
      sandboxIdleMs: z
        .number()
        .int()
        .positive()
        .default(5 * 60_000),
      /**
       * When a cap is reached, a session with no call running and no request for this long is
       * ended to make room for the new one (clients that never send DELETE leave such sessions).
       */
      reclaimAfterMs: z.number().int().nonnegative().default(60_000),
      /**
       * Hosts (`Host` header, without port) `/mcp` answers to, and browser origins allowed
       * besides `corsOrigins` (DNS rebinding); loopback names by default. `"*"` allows any.
       */
      allowedHosts: z.array(z.string().min(1)).default(['127.0.0.1', 'localhost', '[::1]']),
    })
    .default({
      roots: [],
      idleTimeoutMs: 15 * 60_000,
      sessionsPerKey: 8,
      maxSessions: 16,
      sessionMemoryBytes: 256 * 1024 * 1024,
      sandboxIdleMs: 5 * 60_000,
      reclaimAfterMs: 60_000,
      allowedHosts: ['127.0.0.1', 'localhost', '[::1]'],
    }),
  /** SSE comment heartbeat, so proxies keep idle streams open. */
  heartbeatMs: z.number().int().positive().default(15_000),
  /** On SIGTERM, how long running turns may continue before they are stopped. */
  shutdownGraceMs: z.number().int().nonnegative().default(10_000),
  /** What happens to runs found `running` at start-up. */
  onRestart: z.enum(['resume', 'interrupt']).default('resume'),
  logLevel: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
});
/** The validated configuration, with the store resolved (`<dataDir>/rlm-server.db` by default). */
export type ServerConfig = Omit<z.infer<typeof serverConfigSchema>, 'store'> & {
  store: NonNullable<z.infer<typeof serverConfigSchema>['store']>;
};
export type ServerConfigInput = z.input<typeof serverConfigSchema>;

/**
 * Validates a configuration object.
 *
 * @throws RlmError `config.invalid` naming every bad field.
 */
export function parseServerConfig(value: unknown, source = 'server config'): ServerConfig {
  const result = serverConfigSchema.safeParse(value);
  if (!result.success) {
    throw new RlmError({
      code: 'config.invalid',
      message: `Invalid ${source}:\n${prettifyError(result.error)}`,
      details: { source, issues: describeIssues(result.error) },
      cause: result.error,
    });
  }
  const config: ServerConfig = {
    ...result.data,
    store: result.data.store ?? {
      kind: 'sqlite',
      path: join(result.data.dataDir, 'rlm-server.db'),
    },
  };
  if (!Object.hasOwn(config.profiles, config.defaultProfile)) {
    throw new RlmError({
      code: 'config.invalid',
      message: `Invalid ${source}: defaultProfile "${config.defaultProfile}" is not one of profiles (${Object.keys(config.profiles).join(', ')})`,
      details: { source, issues: ['defaultProfile: not a configured profile'] },
    });
  }
  return config;
}
