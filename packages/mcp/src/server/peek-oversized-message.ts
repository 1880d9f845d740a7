import type { RequestId } from '@modelcontextprotocol/sdk/types.js';

/** Bytes kept from each end of a message too large to read, to find its id and kind. */
export const PEEK_BYTES = 4096;

const ID = String.raw`(-?\d+|"(?:[^"\\]|\\.)*")`;
/** `{"jsonrpc":"2.0","id":…` or `{"id":…`: the order Python and many other clients write. */
const ID_AT_START = new RegExp(
  String.raw`^\s*\{\s*(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?"id"\s*:\s*${ID}`,
);
/** `…,"jsonrpc":"2.0","id":…}` or `…,"id":…}`: the order the TypeScript SDK writes. */
const ID_AT_END = new RegExp(
  String.raw`"id"\s*:\s*${ID}\s*(?:,\s*"jsonrpc"\s*:\s*"2\.0"\s*)?\}\s*$`,
);
/** The first top-level key that is neither `jsonrpc` nor `id`: `method`, `result` or `error`. */
const FIRST_KEY = /^\s*\{(?:\s*"(?:jsonrpc|id)"\s*:\s*(?:"[^"]*"|-?\d+)\s*,)*\s*"(\w+)"\s*:/;

/** What can still be known of a JSON-RPC message too large to read. */
export interface OversizedMessage {
  /** Its id, when one end of it shows it. */
  id: RequestId | undefined;
  /** An answer (`result` or `error`) to a request we sent, rather than a request of its own. */
  isResponse: boolean;
}

/**
 * The id and kind of a JSON-RPC message from its first and last `PEEK_BYTES` alone, without
 * parsing (or holding) the rest: enough to answer the request it carries, or to fail the
 * request it answers, instead of leaving either waiting.
 */
export function peekOversizedMessage(head: string, tail: string): OversizedMessage {
  const raw = (ID_AT_START.exec(head) ?? ID_AT_END.exec(tail))?.[1];
  let id: RequestId | undefined;
  if (raw !== undefined) {
    try {
      id = JSON.parse(raw) as RequestId;
    } catch {
      id = undefined;
    }
  }
  const key = FIRST_KEY.exec(head)?.[1];
  return { id, isResponse: key === 'result' || key === 'error' };
}
