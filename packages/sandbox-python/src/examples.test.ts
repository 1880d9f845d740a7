import { describe, expect, it } from 'vitest';
import { summarise } from '../examples/smallest.js';

describe('README examples', () => {
  it('runs the smallest example end to end', async () => {
    await expect(summarise('invoice 42 is overdue')).resolves.toBe('a summary of 32 characters');
  });
});
