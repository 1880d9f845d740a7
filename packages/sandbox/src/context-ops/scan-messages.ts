import type { JsonValue } from '@rlm/protocol';
import type { WireError } from '../worker-messages.js';
import type { SharedText } from './shared-text.js';

/** One helper operation on one payload, as the scan worker receives it. */
export type ScanOperation =
  | {
      op: 'grep';
      source: string;
      flags: string;
      context: number;
      maxItems: number;
      maxChars: number;
    }
  | { op: 'find_all'; source: string; flags: string; maxItems: number; maxChars: number }
  | { op: 'count'; source: string; flags: string }
  | { op: 'lines'; start: number; end: number; maxChars: number }
  | { op: 'chunk'; size: number; overlap: number; maxItems: number };

export type ToScanWorker =
  /**
   * `text`: a long string as shared UTF-8 bytes, which the scan worker decodes once: at once with
   * `decodeNow`, else on the first scan of it. `codePoints`: offsets in results count code points
   * (Python's `str` indices) instead of UTF-16 units.
   */
  | {
      type: 'payload';
      name: string;
      text: string | SharedText;
      decodeNow?: boolean;
      codePoints?: boolean;
    }
  | { type: 'run'; requestId: number; payload: string; operation: ScanOperation };

export type FromScanWorker =
  /** The scan began: its deadline starts now (not while the worker started or took the payload). */
  | { type: 'started'; requestId: number }
  | { type: 'result'; requestId: number; ok: true; value: JsonValue }
  | { type: 'result'; requestId: number; ok: false; error: WireError };
