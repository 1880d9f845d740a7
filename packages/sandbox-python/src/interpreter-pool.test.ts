import { RlmError } from '@rlm/protocol';
import { describe, expect, it } from 'vitest';
import { createPythonSandbox, prewarmPythonSandboxes } from './create-python-sandbox.js';
import { interpreterPool } from './host/interpreter-pool.js';
import { run, TEST_MEMORY_BYTES } from './sandbox-cases.test-helpers.js';

describe('ready interpreters', () => {
  it('hands a prewarmed interpreter to the next sandbox and starts a spare to replace it', async () => {
    await prewarmPythonSandboxes({ count: 1, memoryBytes: TEST_MEMORY_BYTES });
    const before = interpreterPool.spareCount;
    expect(before).toBeGreaterThanOrEqual(1);
    const sandbox = await createPythonSandbox({ limits: { memoryBytes: TEST_MEMORY_BYTES } });
    try {
      expect(await run(sandbox, '6 * 7')).toBe('42\n');
      expect(interpreterPool.spareCount).toBeGreaterThanOrEqual(1);
    } finally {
      await sandbox.dispose();
    }
  });

  it('never gives a sandbox an interpreter another sandbox has used', async () => {
    const first = await createPythonSandbox({ limits: { memoryBytes: TEST_MEMORY_BYTES } });
    await run(
      first,
      'import json, builtins\njson.dumps = None\nbuiltins.tampered = True\nmine = 1',
    );
    await first.dispose();
    const second = await createPythonSandbox({ limits: { memoryBytes: TEST_MEMORY_BYTES } });
    try {
      expect(
        await run(
          second,
          'import json, builtins\nprint(json.dumps([1]), hasattr(builtins, "tampered"), "mine" in globals())',
        ),
      ).toBe('[1] False False\n');
    } finally {
      await second.dispose();
    }
  });

  it('refuses a prewarm count outside 1–8 or a memory size below the minimum', async () => {
    for (const options of [{ count: 0 }, { count: 9 }, { memoryBytes: 1024 }]) {
      await expect(prewarmPythonSandboxes(options)).rejects.toSatisfy((error) =>
        RlmError.is(error, 'config.invalid'),
      );
    }
  });
});

describe('createPythonSandbox options', () => {
  it('names the field of an invalid option', async () => {
    await expect(createPythonSandbox({ limits: { memoryBytes: 1024 } })).rejects.toThrow(
      /limits\.memoryBytes/,
    );
    await expect(
      createPythonSandbox({
        functions: { 'not-python': { description: '', call: async () => null } },
      }),
    ).rejects.toSatisfy((error) => RlmError.is(error, 'config.invalid'));
    await expect(
      createPythonSandbox({ functions: { FINAL: { description: '', call: async () => null } } }),
    ).rejects.toThrow(/functions\.FINAL: the sandbox defines FINAL itself/);
  });

  it('refuses an already aborted signal', async () => {
    await expect(createPythonSandbox({ signal: AbortSignal.abort() })).rejects.toSatisfy((error) =>
      RlmError.is(error, 'sandbox.aborted'),
    );
  });
});
