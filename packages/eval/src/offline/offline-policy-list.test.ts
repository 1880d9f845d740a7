import { OFFLINE_POLICIES as TESTKIT_POLICIES } from '@rlm/testkit';
import { describe, expect, it } from 'vitest';
import { OFFLINE_POLICIES } from './offline-model.js';

const toKebab = (name: string) => name.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`);

describe('offline policies', () => {
  it('are @rlm/testkit’s one list plus reference, so every door accepts the same ids', () => {
    expect(OFFLINE_POLICIES.map(toKebab).sort()).toEqual(
      ['reference', ...Object.keys(TESTKIT_POLICIES)].sort(),
    );
  });
});
