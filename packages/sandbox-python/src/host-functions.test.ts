import type { JsonValue } from '@rlm/protocol';
import { RlmError } from '@rlm/protocol';
import { describe, expect, it } from 'vitest';
import { delayedFunction, run, withSandbox } from './sandbox-cases.test-helpers.js';

describe('host functions in Python', () => {
  it('blocks Python on llm_query until the host answers, with JSON copies both ways', async () => {
    const seen: JsonValue[][] = [];
    const llm_query = {
      description: 'echo',
      call: async (args: JsonValue[]) => {
        seen.push(args);
        await new Promise((resolve) => setTimeout(resolve, 50));
        return { answer: `re:${String(args[0])}`, n: [1, 2] };
      },
    };
    await withSandbox({ functions: { llm_query } }, async (sandbox) => {
      const out = await run(
        sandbox,
        'r = llm_query("héllo 🙂", model="m", system_prompt="s")\nprint(r["answer"], r["n"])',
      );
      expect(out).toBe('re:héllo 🙂 [1, 2]\n');
      // Keyword arguments arrive as one trailing options object, snake_case as camelCase.
      expect(seen[0]).toEqual(['héllo 🙂', { model: 'm', systemPrompt: 's' }]);
    });
  });

  it('runs a 20-prompt batch concurrently on the host in one blocking call', async () => {
    const one = delayedFunction(100, (args) => `re:${String(args[0])}`);
    let inFlight = 0;
    let mostInFlight = 0;
    const llm_query_batched = {
      description: 'batch',
      call: (args: JsonValue[], options: { signal: AbortSignal }) =>
        Promise.all(
          (args[0] as string[]).map(async (prompt) => {
            inFlight += 1;
            mostInFlight = Math.max(mostInFlight, inFlight);
            try {
              return await one.call([prompt], options);
            } finally {
              inFlight -= 1;
            }
          }),
        ),
    };
    await withSandbox({ functions: { llm_query_batched } }, async (sandbox) => {
      const result = await sandbox.execute(
        'answers = llm_query_batched([f"p{i}" for i in range(20)])\nlen(answers)',
      );
      expect(result.stdout).toBe('20\n');
      // Concurrency without a clock: every call of the batch was in flight at once.
      expect(mostInFlight).toBe(20);
      expect(await sandbox.getVariable('answers')).toEqual(
        Array.from({ length: 20 }, (_, i) => `re:p${i}`),
      );
    });
  });

  it('raises a host failure in Python as HostError with the host error name and code', async () => {
    const tool = {
      description: 'fails',
      call: async (args: JsonValue[]) => {
        if (args[0] === 'rlm') {
          throw new RlmError({
            code: 'sandbox.pattern_timeout',
            message: 'no budget',
            details: { limitMs: 1 },
          });
        }
        throw new RangeError('tool broke');
      },
    };
    await withSandbox({ functions: { tool } }, async (sandbox) => {
      const out = await run(
        sandbox,
        'caught = []\nfor arg in ("x", "rlm"):\n    try:\n        tool(arg)\n    except HostError as e:\n        caught.append((type(e).__name__, e.name, e.code, str(e)))\ncaught',
      );
      expect(out).toBe(
        "[('HostError', 'RangeError', None, 'tool broke'), ('HostError', 'RlmError', 'sandbox.pattern_timeout', 'no budget')]\n",
      );
    });
  });

  it('shows a host failure in a traceback without the scaffold, also when it is chained', async () => {
    const tool = {
      description: 'fails',
      call: async () => {
        throw new Error('tool broke');
      },
    };
    await withSandbox({ functions: { tool } }, async (sandbox) => {
      const result = await sandbox.execute('try:\n    tool()\nexcept HostError:\n    1 / 0');
      expect(result.error?.name).toBe('ZeroDivisionError');
      expect(result.stderr).toContain('HostError: tool broke');
      expect(result.stderr).toContain('During handling of the above exception');
      expect(result.stderr).not.toContain('rlm-');
    });
  });

  it('refuses arguments that are not JSON values before calling the host', async () => {
    const tool = delayedFunction(1);
    await withSandbox({ functions: { tool } }, async (sandbox) => {
      const result = await sandbox.execute('tool(object())');
      expect(result.error).toMatchObject({ name: 'TypeError' });
      expect(tool.calls).toBe(0);
    });
  });

  it('answers a raw request on the device that names no host function with an error', async () => {
    await withSandbox({}, async (sandbox) => {
      const out = await run(
        sandbox,
        'import os\nfd = os.open("/dev/rlm", os.O_RDWR)\nos.write(fd, b\'{"fn": "secret", "args": []}\')\nreply = os.read(fd, 4096)\nos.close(fd)\nreply.decode()',
      );
      expect(out).toContain('no host function named secret');
    });
  });
});
