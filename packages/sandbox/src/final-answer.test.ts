import { describe, expect, it } from 'vitest';
import { ISOLATIONS, withSandbox } from './sandbox-cases.test-helpers.js';

describe.each(ISOLATIONS)('FINAL and FINAL_VAR in code (%s)', (isolation) => {
  it('sets the final answer from FINAL, stringifying non-strings', async () => {
    await withSandbox({ isolation }, async (sandbox) => {
      expect((await sandbox.execute('FINAL("done")')).finalAnswer).toBe('done');
      expect((await sandbox.execute('FINAL(42)')).finalAnswer).toBe('42');
      expect((await sandbox.execute('FINAL({ a: [1] })')).finalAnswer).toBe('{"a":[1]}');
      expect((await sandbox.execute('1 + 1')).finalAnswer).toBeNull();
    });
  });

  it('keeps the first answer of a block', async () => {
    await withSandbox({ isolation }, async (sandbox) => {
      const result = await sandbox.execute('FINAL("first"); FINAL("second")');
      expect(result.finalAnswer).toBe('first');
    });
  });

  it('captures the answer even when the block throws afterwards', async () => {
    await withSandbox({ isolation }, async (sandbox) => {
      const result = await sandbox.execute('FINAL("kept");\nthrow new Error("late")');
      expect(result.finalAnswer).toBe('kept');
      expect(result.error).toMatchObject({ message: 'late', line: 2 });
    });
  });

  it('resolves FINAL_VAR by name, with quotes stripped', async () => {
    await withSandbox({ isolation }, async (sandbox) => {
      await sandbox.execute('const answer = "forty-two"; const n = 7;');
      expect((await sandbox.execute('FINAL_VAR("answer")')).finalAnswer).toBe('forty-two');
      expect((await sandbox.execute('FINAL_VAR("\'n\'")')).finalAnswer).toBe('7');
      expect((await sandbox.execute('FINAL_VAR(123)')).finalAnswer).toBe('123');
    });
  });

  it('returns an error string for a missing variable and sets no answer', async () => {
    await withSandbox({ isolation }, async (sandbox) => {
      const empty = await sandbox.execute('const r = FINAL_VAR("nope"); print(r)');
      expect(empty.finalAnswer).toBeNull();
      expect(empty.stdout).toBe("Error: Variable 'nope' not found. Available variables: r\n");
      const none = await withSandbox({ isolation }, (fresh) => fresh.execute('FINAL_VAR("x")'));
      expect(none.stdout).toContain('No variables have been created yet');
    });
  });

  it('gives no answer for a variable that holds undefined, and says why', async () => {
    await withSandbox({ isolation }, async (sandbox) => {
      const result = await sandbox.execute('let pending; const r = FINAL_VAR("pending"); print(r)');
      expect(result.finalAnswer).toBeNull();
      expect(result.stdout).toContain("Variable 'pending' holds undefined");
    });
  });

  it('resets the answer for the next block and lists variables with SHOW_VARS', async () => {
    await withSandbox({ isolation }, async (sandbox) => {
      await sandbox.execute('FINAL("x"); const items = [1]');
      const next = await sandbox.execute('SHOW_VARS()');
      expect(next.finalAnswer).toBeNull();
      expect(next.stdout).toBe("'Variables: items (array)'\n");
    });
  });
});
