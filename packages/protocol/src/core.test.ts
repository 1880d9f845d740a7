import { describe, expect, it } from 'vitest';
import * as core from './core.js';
import * as api from './index.js';

describe('the core entry (@rlm/protocol/core)', () => {
  it('exports the very same values as the main entry, so RlmError checks agree across entries', () => {
    const main = new Map<string, unknown>(Object.entries(api));
    expect(Object.keys(core).sort()).toEqual([
      'ANTHROPIC_EFFORTS',
      'DEFAULT_BLOCK_TIMEOUT_MS',
      'DEFAULT_CAPTURE_CHARS',
      'DEFAULT_CPU_SLICE_MS',
      'DEFAULT_ESCALATE_AFTER_ERRORS',
      'DEFAULT_MAX_ANSWER_CHARS',
      'DEFAULT_MAX_CONSECUTIVE_ERRORS',
      'DEFAULT_MAX_DEPTH',
      'DEFAULT_MAX_ITERATIONS',
      'DEFAULT_MAX_OUTPUT_CHARS',
      'DEFAULT_MEMORY_BYTES',
      'END_STATUSES',
      'ERROR_KINDS',
      'ERROR_KIND_BY_CODE',
      'RESERVED_NAMES',
      'RESUMABLE_STATUSES',
      'RlmError',
      'definedEntries',
      'errorInfo',
      'errorKind',
      'isEndStatus',
      'isReservedName',
      'isResumableStatus',
      'truncateOutput',
      'truncationMarker',
    ]);
    for (const [name, value] of Object.entries(core)) expect(main.get(name), name).toBe(value);
  });
});
