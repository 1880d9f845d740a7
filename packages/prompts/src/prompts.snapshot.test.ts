import { describe, expect, it } from 'vitest';
import { loadDrivers } from './drivers/load-drivers.js';
import { assemblePrompt } from './layered/assemble-prompt.js';
import { buildSpecialistPrompt, buildSystemPrompt } from './system/build-system-prompt.js';
import { buildFlatPrompt } from './system/flat-prompt.js';

const tools = [
  {
    name: 'search_docs',
    description: 'Full-text search over the product manual.',
    signature: '(query, { limit })',
  },
];
const models = [
  { id: 'anthropic/claude-haiku-4-5', description: 'fast, cheap reads', default: true },
  { id: 'anthropic/claude-opus-4-1', description: 'hard reasoning' },
];

const dynamic = {
  state: { now: '2026-11-22T01:00:00Z', mood: 'busy' },
  budget: { tokensRemaining: 40_000, callsRemaining: 12, timeRemainingMs: 300_000 },
  pendingMessages: [
    { sender: 'alice', text: 'Did my refund go through?', at: '2026-11-22T00:58:00Z' },
  ],
  conversations: [
    {
      sender: 'alice',
      messages: [
        { role: 'user' as const, text: 'I returned order 7.' },
        { role: 'assistant' as const, text: 'Thanks, I will check the refund.' },
        { role: 'user' as const, text: 'Any update?' },
        { role: 'assistant' as const, text: 'Still processing.' },
        { role: 'user' as const, text: 'And now?' },
        { role: 'assistant' as const, text: 'Tomorrow, most likely.' },
      ],
    },
    { sender: 'bob', messages: [{ role: 'user' as const, text: 'private to bob' }] },
  ],
  recentMemory: [{ text: 'Refunds take 3 business days.', source: 'semantic#4' }],
  tools: [{ name: 'lookup_refund', description: 'Status of a refund by order id.' }],
};

describe('assembled prompts (snapshots)', () => {
  it('root solver', () => {
    expect(
      buildSystemPrompt({ depth: 0, maxDepth: 2, childBudget: 10, tools, models }),
    ).toMatchSnapshot();
  });

  it('root coordinator with dispatcher and drivers', () => {
    const [custom] = loadDrivers([
      {
        path: 'drivers/cite.md',
        text: '---\nname: cite-sources\ndescription: Cite offsets.\n---\nCite the character offset of every quote.',
      },
    ]);
    expect(
      buildSystemPrompt({
        depth: 0,
        maxDepth: 3,
        mode: 'coordinator',
        childBudget: 6,
        dispatcher: true,
        drivers: [
          'delegation-first',
          'verify-before-final',
          ...(custom === undefined ? [] : [custom]),
        ],
      }),
    ).toMatchSnapshot();
  });

  it('child', () => {
    expect(
      buildSystemPrompt({
        depth: 1,
        maxDepth: 2,
        mode: 'coordinator',
        drivers: ['delegation-first'],
      }),
    ).toMatchSnapshot();
  });

  it('specialist', () => {
    expect(
      buildSpecialistPrompt({
        depth: 1,
        maxDepth: 3,
        childBudget: 4,
        systemPrompt: 'You are a meticulous contract lawyer. Quote every clause verbatim.',
      }),
    ).toMatchSnapshot();
  });

  it('flat', () => {
    expect(buildFlatPrompt()).toMatchSnapshot();
  });

  it('layered full', () => {
    const assembled = assemblePrompt({
      identityTag: 'Ada, the support agent of Acme',
      skills: [{ name: 'refunds', description: 'Look up and explain refunds.' }],
      dynamic,
    });
    expect(assembled.text).toMatchSnapshot();
  });

  it('layered compact', () => {
    expect(assemblePrompt({ dynamic }, { compact: true }).text).toMatchSnapshot();
  });
});

describe('Python REPL prompts (snapshots)', () => {
  it('root solver', () => {
    expect(
      buildSystemPrompt({ depth: 0, maxDepth: 2, childBudget: 10, tools, models, repl: 'python' }),
    ).toMatchSnapshot();
  });

  it('root coordinator with dispatcher and drivers', () => {
    expect(
      buildSystemPrompt({
        depth: 0,
        maxDepth: 3,
        mode: 'coordinator',
        childBudget: 6,
        dispatcher: true,
        drivers: ['delegation-first', 'deadline-final', 'await-discipline'],
        repl: 'python',
      }),
    ).toMatchSnapshot();
  });

  it('child', () => {
    expect(buildSystemPrompt({ depth: 1, maxDepth: 2, repl: 'python' })).toMatchSnapshot();
  });

  it('specialist', () => {
    expect(
      buildSpecialistPrompt({
        depth: 1,
        maxDepth: 3,
        childBudget: 4,
        systemPrompt: 'You are a meticulous contract lawyer. Quote every clause verbatim.',
        repl: 'python',
      }),
    ).toMatchSnapshot();
  });

  it('root solver without context helpers', () => {
    expect(
      buildSystemPrompt({ depth: 0, maxDepth: 2, contextHelpers: false, repl: 'python' }),
    ).toMatchSnapshot();
  });
});
