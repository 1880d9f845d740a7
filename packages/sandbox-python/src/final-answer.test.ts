import { describe, expect, it } from 'vitest';
import { withSandbox } from './sandbox-cases.test-helpers.js';

describe('FINAL and FINAL_VAR in Python', () => {
  it('sets the final answer from FINAL: str() of scalars, JSON text of containers, booleans and None', async () => {
    await withSandbox({}, async (sandbox) => {
      expect((await sandbox.execute('FINAL("done")')).finalAnswer).toBe('done');
      expect((await sandbox.execute('FINAL(42)')).finalAnswer).toBe('42');
      expect((await sandbox.execute('FINAL(2.5)')).finalAnswer).toBe('2.5');
      expect((await sandbox.execute('FINAL({"a": [1], "é": (2, None)})')).finalAnswer).toBe(
        '{"a": [1], "é": [2, null]}',
      );
      expect((await sandbox.execute('FINAL(True)')).finalAnswer).toBe('true');
      expect((await sandbox.execute('FINAL(None)')).finalAnswer).toBe('null');
      expect((await sandbox.execute('FINAL({1, 2})')).finalAnswer).toBe('{1, 2}');
      expect((await sandbox.execute('1 + 1')).finalAnswer).toBeNull();
    });
  });

  it('gives FINAL_VAR of a dict variable in code as JSON text', async () => {
    await withSandbox({}, async (sandbox) => {
      await sandbox.execute('result = {"total": 3, "names": ["a", "b"]}');
      expect((await sandbox.execute('FINAL_VAR("result")')).finalAnswer).toBe(
        '{"total": 3, "names": ["a", "b"]}',
      );
    });
  });

  it('keeps the first answer of a block, even when the block raises afterwards', async () => {
    await withSandbox({}, async (sandbox) => {
      expect((await sandbox.execute('FINAL("first"); FINAL("second")')).finalAnswer).toBe('first');
      const raised = await sandbox.execute('FINAL("kept")\nraise ValueError("late")');
      expect(raised.finalAnswer).toBe('kept');
      expect(raised.error).toMatchObject({ name: 'ValueError', message: 'late', line: 2 });
    });
  });

  it('resolves FINAL_VAR by name with one layer of quotes stripped, or stringifies a non-name', async () => {
    await withSandbox({}, async (sandbox) => {
      await sandbox.execute('answer = "forty-two"\nn = 7');
      expect((await sandbox.execute('FINAL_VAR("answer")')).finalAnswer).toBe('forty-two');
      expect((await sandbox.execute('FINAL_VAR(" \'n\' ")')).finalAnswer).toBe('7');
      expect((await sandbox.execute('FINAL_VAR(123)')).finalAnswer).toBe('123');
    });
  });

  it('returns an error string for a missing variable and sets no answer', async () => {
    await withSandbox({}, async (sandbox) => {
      const fresh = await sandbox.execute('FINAL_VAR("x")');
      expect(fresh.finalAnswer).toBeNull();
      expect(fresh.stdout).toContain(
        "Error: Variable 'x' not found. No variables have been created yet.",
      );
      const missing = await sandbox.execute('a = 1\nb = FINAL_VAR("nope")\nprint(b)');
      expect(missing.finalAnswer).toBeNull();
      expect(missing.stdout).toBe("Error: Variable 'nope' not found. Available variables: a\n");
    });
  });

  it('resets the answer for the next block and lists variables with SHOW_VARS', async () => {
    await withSandbox({}, async (sandbox) => {
      await sandbox.execute('FINAL("x")\nitems = [1]');
      const next = await sandbox.execute('print(SHOW_VARS())');
      expect(next.finalAnswer).toBeNull();
      expect(next.stdout).toBe('Variables: items (list)\n');
    });
  });
});
