// Defined once in the protocol (the run contract's defaults); re-exported here so the executor's
// zod-free `@rlm/executor/defaults` entry keeps offering them.
export {
  DEFAULT_ESCALATE_AFTER_ERRORS,
  DEFAULT_MAX_DEPTH,
  DEFAULT_MAX_ITERATIONS,
} from '@rlm/protocol/core';
