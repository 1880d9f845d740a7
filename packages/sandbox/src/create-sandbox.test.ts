import { RlmError } from '@rlm/protocol';
import { describe, expect, it } from 'vitest';
import { createSandbox } from './create-sandbox.js';
import {
  DEFAULT_INLINE_STACK_BYTES,
  DEFAULT_STACK_BYTES,
  resolveLimits,
} from './sandbox-options.js';

describe('createSandbox options', () => {
  it.each([
    [{ isolation: 'thread' }, 'isolation'],
    [{ limits: { memoryBytes: 1024 } }, 'limits.memoryBytes'],
    [{ limits: { cpuSliceMs: -1 } }, 'limits.cpuSliceMs'],
    [{ functions: { 'bad name': { description: 'x', call: async () => null } } }, 'functions'],
    [{ functions: { tool: { description: 'x' } } }, 'functions.tool.call'],
    [{ context: 'a', contexts: ['b'] }, 'contexts'],
    [{ surprise: true }, 'surprise'],
  ])('rejects %j naming %s', async (options, field) => {
    const attempt = createSandbox({ isolation: 'inline', ...(options as object) });
    await expect(attempt).rejects.toSatisfy(
      (error) => RlmError.is(error, 'config.invalid') && error.message.includes(field),
    );
  });

  it.each(['FINAL', 'grep', 'context_1', 'console'])(
    'refuses a supplied function named %s',
    async (name) => {
      const attempt = createSandbox({
        isolation: 'inline',
        functions: { [name]: { description: 'x', call: async () => null } },
      });
      await expect(attempt).rejects.toSatisfy(
        (error) =>
          RlmError.is(error, 'config.invalid') && error.message.includes(`functions.${name}`),
      );
    },
  );

  it('refuses an already aborted signal', async () => {
    const attempt = createSandbox({ isolation: 'inline', signal: AbortSignal.abort() });
    await expect(attempt).rejects.toSatisfy((error) => RlmError.is(error, 'sandbox.aborted'));
  });

  it('defaults the stack limit by isolation mode', () => {
    expect(resolveLimits(undefined, 'worker').stackBytes).toBe(DEFAULT_STACK_BYTES);
    expect(resolveLimits(undefined, 'inline').stackBytes).toBe(DEFAULT_INLINE_STACK_BYTES);
  });

  it('defaults to worker isolation', async () => {
    const sandbox = await createSandbox({});
    try {
      expect(sandbox.isolation).toBe('worker');
    } finally {
      await sandbox.dispose();
    }
  });
});
