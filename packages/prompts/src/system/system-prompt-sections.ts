import { RlmError } from '@rlm/protocol';
import { resolveDrivers } from '../drivers/resolve-drivers.js';
import type { PromptSection } from '../prompt-section.js';
import { answerFormat } from './answer-format.js';
import { coordinatorWorkflow } from './coordinator-workflow.js';
import { delegationCapability } from './delegation-capability.js';
import { delegationTips } from './delegation-tips.js';
import { DISPATCHER } from './dispatcher-section.js';
import { environment } from './environment.js';
import { buildFlatPrompt } from './flat-prompt.js';
import { identity } from './identity.js';
import { modelsTable } from './models-table.js';
import { pythonDelegationCapability } from './python-delegation-capability.js';
import { PYTHON_DISPATCHER } from './python-dispatcher-section.js';
import { pythonEnvironment } from './python-environment.js';
import { SOLVER_WORKFLOW } from './solver-workflow.js';
import {
  canDelegate,
  parseSystemPromptOptions,
  type ResolvedSystemPromptOptions,
  type SystemPromptOptions,
} from './system-prompt-options.js';
import { toolsSection } from './tools-section.js';

function section(id: string, title: string, text: string | undefined): PromptSection[] {
  return text === undefined ? [] : [{ id, title, text }];
}

function specialistNote(depth: number): string {
  return (
    `The instructions above come from the RLM that started you. You run at depth ${depth} with a REPL ` +
    'of your own, described below, and your final answer is returned to that RLM as the result of its call.'
  );
}

/** The sections that show code, in the REPL's language: the same ids and order for both. */
function languageTexts({ repl, contextHelpers, childBudget }: ResolvedSystemPromptOptions) {
  return repl === 'python'
    ? {
        environment: pythonEnvironment(contextHelpers),
        delegation: pythonDelegationCapability(childBudget, contextHelpers),
        dispatcher: PYTHON_DISPATCHER,
      }
    : {
        environment: environment(contextHelpers),
        delegation: delegationCapability(childBudget, contextHelpers),
        dispatcher: DISPATCHER,
      };
}

/** Tools, models, delegation and dispatcher: the capability sections shared by every REPL prompt. */
function capabilitySections(
  options: ResolvedSystemPromptOptions,
  delegates: boolean,
): PromptSection[] {
  const texts = languageTexts(options);
  return [
    { id: 'environment', title: 'Environment', text: texts.environment },
    ...section('tools', 'Tools', toolsSection(options.tools, options.repl)),
    ...section('models', 'Models', modelsTable(options.models, options.repl)),
    ...(delegates
      ? [{ id: 'delegation', title: 'Delegation capability', text: texts.delegation }]
      : []),
    ...(delegates && options.dispatcher
      ? [{ id: 'dispatcher', title: 'Background tasks', text: texts.dispatcher }]
      : []),
  ];
}

function driverSections(options: ResolvedSystemPromptOptions): PromptSection[] {
  // Drivers shape the root's behaviour only; children inherit none, so a coordinator-only driver
  // never collides with a child's solver mode.
  if (options.depth > 0) return [];
  const mode = options.systemPrompt === undefined ? options.mode : 'solver';
  return resolveDrivers(options.drivers, { mode, model: options.model, repl: options.repl }).map(
    (driver) => ({
      id: `driver:${driver.name}`,
      title: `Driver ${driver.name}`,
      // A body without its own heading gets one, so every driver reads as a separate section.
      text: driver.body.startsWith('#')
        ? driver.body
        : `## Driver: ${driver.name}\n\n${driver.body}`,
    }),
  );
}

function outputSections(options: ResolvedSystemPromptOptions): PromptSection[] {
  if (options.depth > 0 || options.output === undefined) return [];
  return [{ id: 'answer-format', title: 'Answer format', text: answerFormat(options.output) }];
}

function flatSections(options: ResolvedSystemPromptOptions): PromptSection[] {
  return [{ id: 'flat', title: 'One-shot answerer', text: buildFlatPrompt(options) }];
}

function specialistSections(
  options: ResolvedSystemPromptOptions & { systemPrompt: string },
  delegates: boolean,
): PromptSection[] {
  return [
    { id: 'specialist', title: 'Caller instructions', text: options.systemPrompt },
    ...(options.depth > 0
      ? [{ id: 'specialist-note', title: 'Specialist note', text: specialistNote(options.depth) }]
      : []),
    ...capabilitySections(options, delegates),
    ...(delegates
      ? [
          {
            id: 'delegation-tips',
            title: 'Delegation tips',
            text: delegationTips(options.contextHelpers, options.repl),
          },
        ]
      : []),
    ...outputSections(options),
    ...driverSections(options),
  ];
}

function assertModeFits(options: ResolvedSystemPromptOptions, delegates: boolean): void {
  if (options.depth === 0 && options.mode === 'coordinator' && !delegates) {
    const issue = `mode: coordinator needs children with a REPL (depth < maxDepth - 1), but maxDepth is ${options.maxDepth}`;
    throw new RlmError({
      code: 'config.invalid',
      message: `Invalid system prompt options:\n  - ${issue}`,
      details: { source: 'system prompt options', issues: [issue] },
    });
  }
}

/**
 * The sections of an RLM system prompt, in order, each with an id and title; `buildSystemPrompt`
 * joins them. Rules: at `depth >= maxDepth` only the one-shot prompt; delegation sections only when
 * `depth < maxDepth - 1`; the coordinator workflow only for the root in coordinator mode (children
 * are always solvers); the answer format (a typed answer's JSON Schema) and drivers only at the
 * root; a `systemPrompt` makes a specialist prompt.
 *
 * @throws RlmError `config.invalid` for bad options, or coordinator mode without delegation
 * @throws RlmError `prompts.driver_not_found`, `prompts.driver_conflict`
 * @example
 * systemPromptSections({ depth: 0, maxDepth: 2 }).map((section) => section.id);
 */
export function systemPromptSections(input: SystemPromptOptions): PromptSection[] {
  const options = parseSystemPromptOptions(input);
  if (options.depth >= options.maxDepth) return flatSections(options);
  const delegates = canDelegate(options.depth, options.maxDepth);
  if (options.systemPrompt !== undefined) {
    return specialistSections({ ...options, systemPrompt: options.systemPrompt }, delegates);
  }
  assertModeFits(options, delegates);
  const coordinator = options.depth === 0 && options.mode === 'coordinator';
  return [
    {
      id: 'identity',
      title: 'Identity',
      text: identity(options.depth, options.mode, options.repl),
    },
    ...capabilitySections(options, delegates),
    coordinator
      ? {
          id: 'coordinator-workflow',
          title: 'Coordinator workflow',
          text: coordinatorWorkflow(options.contextHelpers),
        }
      : { id: 'solver-workflow', title: 'Solver workflow', text: SOLVER_WORKFLOW },
    ...(delegates
      ? [
          {
            id: 'delegation-tips',
            title: 'Delegation tips',
            text: delegationTips(options.contextHelpers, options.repl),
          },
        ]
      : []),
    ...outputSections(options),
    ...driverSections(options),
  ];
}
