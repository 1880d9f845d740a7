import type { RlmError, UsageSummary } from '@rlm/protocol';

/** How a sub-call ended: the text code receives, whether it succeeded, and what it cost. */
export interface SubCallOutcome {
  text: string;
  ok: boolean;
  usage: UsageSummary;
  /**
   * Set when the budget had no room for the call, so it was never sent: `llm_query` and
   * `rlm_query` reject the guest's promise with it (batched calls put `text` in the slot).
   */
  refusal?: RlmError;
}
