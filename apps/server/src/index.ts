/** @packageDocumentation The RLM HTTP server: runs, OpenAI-compatible completions, agents. */

// ── App ─────────────────────────────────

export { createServer } from './create-server.js';
export { main, type RunningServer } from './main.js';
export {
  createServerServices,
  type ServerDeps,
  type ServerServices,
} from './server-services.js';

// ── Replicas ────────────────────────────

export {
  type Cluster,
  type LeaseSettings,
  type OpenClusterOptions,
  openCluster,
  RUN_QUEUE,
} from './cluster/open-cluster.js';
export { createPostgresApiKeyStore } from './cluster/postgres-api-key-store.js';

// ── Configuration ───────────────────────

export { CONFIG_ENV, loadServerConfig } from './load-server-config.js';
export {
  clusterSettingsSchema,
  type ModelProfile,
  modelProfileSchema,
  parseServerConfig,
  type RunMaxima,
  runMaximaSchema,
  type ServerConfig,
  type ServerConfigInput,
  type ServerLimits,
  serverConfigSchema,
  serverLimitsSchema,
} from './server-config.js';

// ── Runs ────────────────────────────────

export {
  createExecutorEngine,
  type ExecutorEngineOptions,
  type ModelResolver,
} from './executor-engine.js';
export type {
  EffectiveBudget,
  EngineTool,
  RunEngine,
  RunEngineInput,
} from './run-engine.js';

// ── Keys ────────────────────────────────

export {
  type ApiKeyRecord,
  type ApiKeyRole,
  type ApiKeyStore,
  generateApiKey,
  hashApiKey,
  type NewApiKey,
  type Principal,
} from './api-key-store.js';
export { createFileApiKeyStore } from './file-api-key-store.js';
export { createMemoryApiKeyStore } from './memory-api-key-store.js';

// ── HTTP contract ───────────────────────

export { errorBodySchema, type RunView, runViewSchema } from './api-schemas.js';
export { buildOpenApiDocument } from './openapi-document.js';
export { statusByCode } from './status-by-code.js';
