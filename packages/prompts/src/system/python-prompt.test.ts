import { describe, expect, it } from 'vitest';
import { loadDrivers } from '../drivers/load-drivers.js';
import { buildSystemPrompt } from './build-system-prompt.js';
import { identity } from './identity.js';
import { PYTHON_DISPATCHER } from './python-dispatcher-section.js';
import { PYTHON_ENVIRONMENT } from './python-environment.js';
import type { SystemPromptOptions } from './system-prompt-options.js';
import { systemPromptSections } from './system-prompt-sections.js';

const tools = [{ name: 'search_docs', description: 'Full-text search.', signature: '(query)' }];
const models = [{ id: 'fast', default: true }, { id: 'strong' }];

/** Every shape of REPL prompt: root solver and coordinator, children, specialists, bare sandboxes. */
const VARIANTS: SystemPromptOptions[] = [
  { depth: 0, maxDepth: 2, tools, models },
  { depth: 0, maxDepth: 3, mode: 'coordinator', dispatcher: true, childBudget: 4 },
  { depth: 1, maxDepth: 3 },
  { depth: 1, maxDepth: 2 },
  { depth: 1, maxDepth: 3, systemPrompt: 'You review contracts.' },
  { depth: 0, maxDepth: 2, contextHelpers: false },
  { depth: 0, maxDepth: 3, mode: 'coordinator', dispatcher: true, contextHelpers: false },
];

const python = (options: SystemPromptOptions) => buildSystemPrompt({ ...options, repl: 'python' });

describe('Python system prompts', () => {
  it('have the JavaScript prompts’ sections, in the same order', () => {
    for (const variant of VARIANTS) {
      const ids = (repl: 'javascript' | 'python') =>
        systemPromptSections({ ...variant, repl }).map((section) => section.id);
      expect(ids('python'), JSON.stringify(variant)).toEqual(ids('javascript'));
    }
  });

  it('say the REPL runs Python and show no JavaScript call syntax', () => {
    for (const variant of VARIANTS) {
      const text = python(variant);
      expect(text, JSON.stringify(variant)).toContain('Python');
      expect(text).not.toContain('JavaScript');
      for (const jsOnly of [
        /\bawait [a-z_]+\(/,
        /\bconst /,
        /Promise\.all/,
        /console\.log/,
        /\{ (model|context|timeoutMs|confidence)/,
      ]) {
        expect(text, `${JSON.stringify(variant)}: ${jsOnly}`).not.toMatch(jsOnly);
      }
    }
  });

  it('document the Python sandbox’s globals with keyword-argument calls', () => {
    for (const name of [
      '`context`',
      '`context_0`',
      '`history_0`',
      "`__rlm['depth']`",
      '`SHOW_VARS()`',
      '`HostError`',
      '`FINAL(answer)`',
      '`FINAL_VAR(name)`',
      "`FINAL_VAR('result')`",
      'must already exist',
      '`llm_query(prompt, model=…)`',
      '`llm_query_batched(prompts, model=…)`',
      '"Error: …"',
      '`grep(pattern, flags=…, context=n, max=…, target=…)`',
      '`find_all(pattern, flags=…, max=…, target=…)`',
      '`count(pattern, flags=…, target=…)`',
      '`lines(start, end, target=…)`',
      '`chunk(n, overlap=…, target=…)`',
      '### Chunking',
      'no `await`',
    ]) {
      expect(PYTHON_ENVIRONMENT, name).toContain(name);
    }
    for (const verb of [
      '`delegate(task, context=…, system_prompt=…, model=…, tools=[…])`',
      '`stream_results()`',
      '`await_results(ids, timeout_ms=…)`',
      '`inspect(key)`',
      '`set_answer(content, ready=…, confidence=…)`',
      '`delegate_batch(tasks)`',
    ]) {
      expect(PYTHON_DISPATCHER, verb).toContain(verb);
    }
  });

  it('documents rlm_query exactly where delegation is possible', () => {
    for (let maxDepth = 1; maxDepth <= 3; maxDepth += 1) {
      for (let depth = 0; depth < maxDepth; depth += 1) {
        const text = python({ depth, maxDepth });
        expect(text.includes('rlm_query('), `depth ${depth} of ${maxDepth}`).toBe(
          depth < maxDepth - 1,
        );
      }
    }
    expect(python({ depth: 0, maxDepth: 2 })).toContain(
      '`rlm_query(prompt, context=…, system_prompt=…, model=…)`',
    );
  });

  it('opens with the Python identity and lists tools and models the Python way', () => {
    const text = python({ depth: 0, maxDepth: 2, tools, models });
    expect(text.startsWith(identity(0, 'solver', 'python'))).toBe(true);
    expect(text).toContain('- `search_docs(query)`: Full-text search.');
    expect(text).toContain("`model='<id>'`");
  });

  it('names no context helper when the sandbox has none', () => {
    const text = python({ depth: 0, maxDepth: 3, mode: 'coordinator', contextHelpers: false });
    expect(text).not.toMatch(/\b(grep|find_all|count|lines|chunk)\(/);
    expect(text).toContain('### Scanning');
  });

  it('leaves out drivers written for the other language', () => {
    const [pythonOnly] = loadDrivers([
      {
        path: 'drivers/comprehensions.md',
        text: '---\nname: comprehensions\ndescription: Style.\nrepls: [python]\n---\nPrefer comprehensions.',
      },
    ]);
    const drivers = ['await-discipline', ...(pythonOnly === undefined ? [] : [pythonOnly])];
    const ids = (repl: 'javascript' | 'python') =>
      systemPromptSections({ depth: 0, maxDepth: 2, drivers, repl })
        .map((section) => section.id)
        .filter((id) => id.startsWith('driver:'));
    expect(ids('python')).toEqual(['driver:comprehensions']);
    expect(ids('javascript')).toEqual(['driver:await-discipline']);
  });

  it('rejects an unknown REPL language, naming the field', () => {
    expect(() =>
      buildSystemPrompt({ depth: 0, maxDepth: 2, repl: 'ruby' as unknown as 'python' }),
    ).toThrow(
      expect.objectContaining({ code: 'config.invalid', message: expect.stringContaining('repl') }),
    );
  });
});
