import { scriptedModel } from '@rlm/testkit';
import { describe, expect, it } from 'vitest';
import { createRLM } from '../create-rlm.js';
import { loadPythonSandbox } from './load-python-sandbox.js';
import { PYTHON_SANDBOX_PACKAGE } from './python-sandbox-package.js';

function moduleNotFound(): Error {
  return Object.assign(new Error(`Cannot find package '${PYTHON_SANDBOX_PACKAGE}'`), {
    code: 'ERR_MODULE_NOT_FOUND',
  });
}

describe('loadPythonSandbox', () => {
  it('names the package to install when it is missing', async () => {
    const failing = loadPythonSandbox(() => Promise.reject(moduleNotFound()));
    await expect(failing).rejects.toMatchObject({
      code: 'config.invalid',
      message: expect.stringContaining('npm install @rlm/sandbox-python'),
      details: { issues: [expect.stringContaining("repl: 'python' needs")] },
    });
  });

  it('passes any other failure to load it through unchanged', async () => {
    const broken = new Error('a syntax error in the package');
    await expect(loadPythonSandbox(() => Promise.reject(broken))).rejects.toBe(broken);
  });

  it('loads the installed package', async () => {
    const module = await loadPythonSandbox();
    expect(typeof module.createPythonSandbox).toBe('function');
  });
});

describe("createRLM({ repl: 'python' }) configuration", () => {
  const model = scriptedModel(['FINAL(x)']);

  it('refuses tool names Python cannot call, naming them', () => {
    const call = async () => 'ok';
    const tools = { $lookup: { description: 'x', call }, lambda: { description: 'y', call } };
    expect(() => createRLM({ model, repl: 'python', tools })).toThrow(
      expect.objectContaining({
        code: 'config.invalid',
        message: expect.stringMatching(/\$lookup[\s\S]*lambda/),
      }),
    );
    expect(() => createRLM({ model, tools })).not.toThrow();
  });

  it('refuses a memory cap below what an interpreter needs', () => {
    const limits = { memoryBytes: 32 * 1024 * 1024 };
    expect(() => createRLM({ model, repl: 'python', limits })).toThrow(
      expect.objectContaining({
        code: 'config.invalid',
        message: expect.stringContaining('48 MiB'),
      }),
    );
  });

  it('refuses a language no REPL runs, naming the field', () => {
    expect(() => createRLM({ model, repl: 'ruby' as 'python' })).toThrow(
      expect.objectContaining({ code: 'config.invalid', message: expect.stringContaining('repl') }),
    );
  });
});
