import { describe, expect, it } from 'vitest';
import { builtinDrivers } from '../drivers/builtin-drivers.js';
import { BASELINE_SOLVER_PROMPT } from './baseline-solver-prompt.js';
import { buildSpecialistPrompt, buildSystemPrompt } from './build-system-prompt.js';
import { COORDINATOR_WORKFLOW } from './coordinator-workflow.js';
import { delegationCapability } from './delegation-capability.js';
import { DELEGATION_TIPS } from './delegation-tips.js';
import { DISPATCHER } from './dispatcher-section.js';
import { ENVIRONMENT } from './environment.js';
import { buildFlatPrompt } from './flat-prompt.js';
import { identity } from './identity.js';
import { SOLVER_WORKFLOW } from './solver-workflow.js';
import { systemPromptSections } from './system-prompt-sections.js';

const ids = (options: Parameters<typeof systemPromptSections>[0]) =>
  systemPromptSections(options).map((section) => section.id);

describe('buildSystemPrompt', () => {
  it('gives the pinned baseline for the root solver with maxDepth 2', () => {
    expect(buildSystemPrompt({ depth: 0, maxDepth: 2, mode: 'solver' })).toBe(
      BASELINE_SOLVER_PROMPT,
    );
    expect(buildSystemPrompt({ depth: 0, maxDepth: 2 })).toBe(BASELINE_SOLVER_PROMPT);
  });

  it('includes delegation docs exactly when depth < maxDepth - 1', () => {
    for (let maxDepth = 1; maxDepth <= 4; maxDepth += 1) {
      for (let depth = 0; depth < maxDepth; depth += 1) {
        const text = buildSystemPrompt({ depth, maxDepth });
        const expected = depth < maxDepth - 1;
        expect(text.includes('rlm_query'), `depth ${depth}, maxDepth ${maxDepth}`).toBe(expected);
        expect(text.includes(DELEGATION_TIPS)).toBe(expected);
      }
    }
  });

  it('gives the root coordinator the coordinator workflow and identity', () => {
    const text = buildSystemPrompt({ depth: 0, maxDepth: 2, mode: 'coordinator' });
    expect(text).toContain(COORDINATOR_WORKFLOW);
    expect(text).not.toContain(SOLVER_WORKFLOW);
    expect(text.startsWith(identity(0, 'coordinator'))).toBe(true);
  });

  it('never gives a child the coordinator workflow, whatever mode is passed', () => {
    for (const depth of [1, 2]) {
      const text = buildSystemPrompt({ depth, maxDepth: 4, mode: 'coordinator' });
      expect(text).toContain(SOLVER_WORKFLOW);
      expect(text).not.toContain(COORDINATOR_WORKFLOW);
      expect(text.startsWith(identity(depth, 'solver'))).toBe(true);
      expect(text).toContain(`depth ${depth}`);
    }
  });

  it('rejects coordinator mode at a root that cannot delegate', () => {
    expect(() => buildSystemPrompt({ depth: 0, maxDepth: 1, mode: 'coordinator' })).toThrow(
      expect.objectContaining({ code: 'config.invalid' }),
    );
  });

  it('gives the one-shot prompt without a REPL at depth >= maxDepth', () => {
    expect(buildSystemPrompt({ depth: 2, maxDepth: 2 })).toBe(buildFlatPrompt());
    expect(buildSystemPrompt({ depth: 3, maxDepth: 2 })).toBe(buildFlatPrompt());
    expect(buildFlatPrompt()).not.toContain('```repl');
  });

  it('puts a caller systemPrompt before the flat prompt at the depth limit', () => {
    const text = buildSystemPrompt({
      depth: 1,
      maxDepth: 1,
      systemPrompt: 'You are a tax expert.',
    });
    expect(text).toBe(`You are a tax expert.\n\n${buildFlatPrompt()}`);
  });

  it('states the iterations each child gets when childBudget is known', () => {
    expect(buildSystemPrompt({ depth: 0, maxDepth: 2, childBudget: 7 })).toContain(
      'Each child gets up to 7 iterations',
    );
    expect(delegationCapability(1)).toContain('up to 1 iteration,');
    expect(delegationCapability()).toContain('do not count against your iteration budget');
  });

  it('orders sections identity, environment, delegation, workflow, tips', () => {
    expect(ids({ depth: 0, maxDepth: 2 })).toEqual([
      'identity',
      'environment',
      'delegation',
      'solver-workflow',
      'delegation-tips',
    ]);
    expect(ids({ depth: 1, maxDepth: 2 })).toEqual(['identity', 'environment', 'solver-workflow']);
  });

  it('documents the dispatcher only when asked and delegation is possible', () => {
    expect(ids({ depth: 0, maxDepth: 2, mode: 'coordinator', dispatcher: true })).toContain(
      'dispatcher',
    );
    expect(ids({ depth: 0, maxDepth: 2, mode: 'coordinator' })).not.toContain('dispatcher');
    expect(buildSystemPrompt({ depth: 1, maxDepth: 2, dispatcher: true })).not.toContain(
      DISPATCHER,
    );
  });

  it('names no context helper when the sandbox has none, in every REPL prompt', () => {
    const helper = /\b(grep|find_all|count|lines|chunk)\(/;
    const variants = [
      { depth: 0, maxDepth: 2 },
      { depth: 0, maxDepth: 3, mode: 'coordinator' as const },
      { depth: 1, maxDepth: 3 },
      { depth: 1, maxDepth: 2, systemPrompt: 'You review contracts.' },
    ];
    for (const variant of variants) {
      const bare = buildSystemPrompt({ ...variant, contextHelpers: false });
      expect(bare, JSON.stringify(variant)).not.toMatch(helper);
      expect(bare, JSON.stringify(variant)).not.toContain('`grep`');
      expect(bare).toContain('### Scanning');
      expect(buildSystemPrompt(variant), JSON.stringify(variant)).toMatch(helper);
    }
    // Drivers are shared by both kinds of sandbox, so none may name a helper either.
    for (const driver of builtinDrivers()) {
      expect(driver.body, driver.name).not.toMatch(
        /`(grep|find_all|count|lines|chunk)`|\b(grep|find_all|chunk)\(/,
      );
    }
  });

  it('names each bad option field in the error', () => {
    expect(() => buildSystemPrompt({ depth: -1, maxDepth: 2 })).toThrow(
      expect.objectContaining({
        code: 'config.invalid',
        details: expect.objectContaining({ issues: [expect.stringContaining('depth')] }),
      }),
    );
    expect(() =>
      buildSystemPrompt({ depth: 0, maxDepth: 2, tools: [{ name: 'bad name', description: 'x' }] }),
    ).toThrow(expect.objectContaining({ message: expect.stringContaining('tools') }));
  });
});

describe('tools and models sections', () => {
  it('lists each user tool with its description', () => {
    const text = buildSystemPrompt({
      depth: 0,
      maxDepth: 2,
      tools: [
        {
          name: 'search_docs',
          description: 'Full-text search over the manual.',
          signature: '(query)',
        },
        { name: 'fetch_ticket', description: 'Loads a ticket by id.' },
      ],
    });
    expect(text).toContain('`await search_docs(query)`: Full-text search over the manual.');
    expect(text).toContain('`await fetch_ticket(…)`: Loads a ticket by id.');
    expect(buildSystemPrompt({ depth: 0, maxDepth: 2 })).not.toContain('## Your tools');
  });

  it('adds a models table only when two or more models exist', () => {
    const one = buildSystemPrompt({ depth: 0, maxDepth: 2, models: [{ id: 'fast' }] });
    expect(one).not.toContain('## Models');
    const two = buildSystemPrompt({
      depth: 0,
      maxDepth: 2,
      models: [
        { id: 'fast', description: 'cheap | quick reads', default: true },
        { id: 'strong', description: 'hard reasoning' },
      ],
    });
    expect(two).toContain('| `fast` (default) | cheap \\| quick reads |');
    expect(two).toContain('| `strong` | hard reasoning |');
  });
});

describe('buildSpecialistPrompt', () => {
  const caller = 'You are a meticulous contract lawyer. Quote clauses verbatim.';

  it('starts with the caller text, then the child environment, without a workflow', () => {
    const text = buildSpecialistPrompt({ depth: 1, maxDepth: 2, systemPrompt: caller });
    expect(text.startsWith(caller)).toBe(true);
    expect(text).toContain(ENVIRONMENT);
    expect(text).not.toContain(identity(1, 'solver'));
    expect(text).not.toContain('rlm_query');
    expect(ids({ depth: 1, maxDepth: 2, systemPrompt: caller })).toEqual([
      'specialist',
      'specialist-note',
      'environment',
    ]);
  });

  it('adds delegation docs only when the specialist can delegate', () => {
    const text = buildSpecialistPrompt({
      depth: 1,
      maxDepth: 3,
      systemPrompt: caller,
      childBudget: 4,
    });
    expect(text).toContain(delegationCapability(4));
    expect(text).toContain(DELEGATION_TIPS);
  });
});
