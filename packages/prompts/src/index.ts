/** @packageDocumentation System prompts for Recursive Language Models: depth- and mode-aware RLM prompts, drivers, the layered prompt of long-lived agents, and executor context sections. */

// ── RLM system prompt ───────────────────

export { BASELINE_SOLVER_PROMPT } from './system/baseline-solver-prompt.js';
export {
  buildSpecialistPrompt,
  buildSystemPrompt,
  type SpecialistPromptOptions,
} from './system/build-system-prompt.js';
export { buildFlatPrompt, type FlatPromptOptions } from './system/flat-prompt.js';
export { type ModelSpec, modelSpecSchema } from './system/model-spec.js';
export { PROMPT_MODES, type PromptMode, promptModeSchema } from './system/prompt-mode.js';
export {
  canDelegate,
  parseSystemPromptOptions,
  type ResolvedSystemPromptOptions,
  type SystemPromptOptions,
  systemPromptOptionsSchema,
} from './system/system-prompt-options.js';
export { systemPromptSections } from './system/system-prompt-sections.js';
export { type ToolSpec, toolSpecSchema } from './system/tool-spec.js';

// ── RLM prompt sections ─────────────────

export { joinSections, type PromptSection, SECTION_SEPARATOR } from './prompt-section.js';
export { answerFormat } from './system/answer-format.js';
export { COORDINATOR_WORKFLOW, coordinatorWorkflow } from './system/coordinator-workflow.js';
export { delegationCapability } from './system/delegation-capability.js';
export { DELEGATION_TIPS, delegationTips } from './system/delegation-tips.js';
export { DISPATCHER } from './system/dispatcher-section.js';
export { ENVIRONMENT, environment } from './system/environment.js';
export { identity } from './system/identity.js';
export { modelsTable } from './system/models-table.js';
export { pythonDelegationCapability } from './system/python-delegation-capability.js';
export { PYTHON_DISPATCHER } from './system/python-dispatcher-section.js';
export { PYTHON_ENVIRONMENT, pythonEnvironment } from './system/python-environment.js';
export { SOLVER_WORKFLOW } from './system/solver-workflow.js';
export { toolsSection } from './system/tools-section.js';

// ── Drivers ─────────────────────────────

export {
  BUILTIN_DRIVER_FILES,
  BUILTIN_DRIVER_NAMES,
  type BuiltinDriverName,
  builtinDrivers,
} from './drivers/builtin-drivers.js';
export { type Driver, driverFrontMatterSchema, driverSchema } from './drivers/driver.js';
export {
  type DriversByModeOptions,
  driversByMode,
  type ModeDrivers,
} from './drivers/drivers-by-mode.js';
export { type DriverFile, loadDrivers } from './drivers/load-drivers.js';
export { matchesModelGlob } from './drivers/model-glob.js';
export { parseDriver, safeParseDriver } from './drivers/parse-driver.js';
export {
  type DriverRef,
  type ResolveDriversOptions,
  resolveDrivers,
} from './drivers/resolve-drivers.js';

// ── Layered prompt ──────────────────────

export {
  type AssembledLayer,
  type AssembledPrompt,
  type AssemblePromptOptions,
  assemblePrompt,
  COMPACT_LAYER_IDS,
  LAYER_SEPARATOR,
  layerHeader,
  MAX_STATIC_PROMPT_CHARS,
  measureStaticPrompt,
  safeAssemblePrompt,
} from './layered/assemble-prompt.js';
export {
  buildDynamicContext,
  COMPACT_EXCHANGES_PER_SENDER,
  DEFAULT_EXCHANGES_PER_SENDER,
  type DynamicContextOptions,
} from './layered/build-dynamic-context.js';
export { type LayerUpdateErrorCode, MAX_LAYER_CHARS } from './layered/check-layer-text.js';
export {
  checkSkill,
  MAX_SKILL_DESCRIPTION_CHARS,
  MAX_SKILL_NAME_CHARS,
  SKILL_NAME_PATTERN,
} from './layered/check-skill.js';
export { DEFAULT_LAYER_SEEDS } from './layered/default-layer-seeds.js';
export {
  type BudgetStatus,
  type Conversation,
  type ConversationMessage,
  type DynamicContextInput,
  dynamicContextInputSchema,
  type MemoryItem,
  type PendingMessage,
} from './layered/dynamic-context-input.js';
export {
  type IdentityTagErrorCode,
  MAX_IDENTITY_TAG_CHARS,
  validateIdentityTag,
} from './layered/identity-tag.js';
export {
  DEFAULT_IDENTITY_TAG,
  LAYER_0_INTERPRETATION,
  LAYER_1_CONSTITUTION,
  LAYER_2_RESOURCE_ECONOMICS,
  LAYER_4_ETHICS,
  layer3Identity,
  layer5OperationalReality,
  type SkillSpec,
  skillSpecSchema,
} from './layered/immutable-layers.js';
export {
  DYNAMIC_LAYER_ID,
  IMMUTABLE_LAYER_IDS,
  isLayerId,
  isMutableLayerId,
  LAYER_IDS,
  LAYER_TITLES,
  type LayerId,
  type LayerMutability,
  layerMutability,
  MUTABLE_LAYER_IDS,
  type MutableLayerId,
} from './layered/layer-id.js';
export { MAX_SUMMARY_QUOTE_CHARS } from './layered/layer-summaries.js';
export type { LayeredPromptInput } from './layered/layered-prompt-input.js';
export { type LayerInfo, listLayers } from './layered/list-layers.js';
export { PROMPT_LAYER_POLICY } from './layered/prompt-layer-policy.js';
export {
  type AttributedLayerText,
  MAX_AUTHOR_CHARS,
  quoteAgentText,
} from './layered/quote-agent-text.js';
export {
  assertLayerUpdate,
  type LayerUpdateContext,
  validateLayerUpdate,
} from './layered/validate-layer-update.js';
export { validateSkill } from './layered/validate-skill.js';

// ── Governance of standing instructions ─

export { type ForgedHeadingFinding, findForgedHeading } from './governance/find-forged-heading.js';
export {
  findMarkupBoundary,
  type MarkupBoundaryFinding,
} from './governance/find-markup-boundary.js';
export { findOverride, type OverrideFinding } from './governance/find-override.js';
export {
  findUnsafeCharacter,
  type UnsafeCharacterFinding,
} from './governance/find-unsafe-character.js';
export { skeleton, visibleText } from './governance/fold-text.js';
export {
  type GovernanceFinding,
  inspectGovernedText,
} from './governance/inspect-governed-text.js';
export { LOOK_ALIKE_LETTERS } from './governance/look-alike-table.js';
export { type EncodedTextFinding, findEncodedText } from './governance/text-readings.js';

// ── Executor context sections ───────────

export {
  buildExecutorSections,
  type DroppedItem,
  type ExecutorItem,
  type ExecutorSection,
  type ExecutorSections,
} from './executor/build-executor-sections.js';
export {
  EXECUTOR_ITEM_KINDS,
  type ExecutorItemKind,
  type ExecutorSectionId,
} from './executor/executor-item-kinds.js';
export {
  type ActionSpec,
  type ContextItem,
  DEFAULT_EXECUTOR_SECTIONS_CHARS,
  type ExecutorSectionsInput,
  executorSectionsInputSchema,
} from './executor/executor-sections-input.js';

// ── Versions, reports and results ───────

export {
  type PromptReport,
  type PromptReportConfig,
  type PromptReportSection,
  promptReport,
  renderPromptReport,
} from './prompt-report.js';
export { promptVersion } from './prompt-version.js';
export type { ParseResult, ValidationResult } from './validation-result.js';
