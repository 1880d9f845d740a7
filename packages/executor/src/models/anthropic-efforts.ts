// One list for the client's schema, the run contract and every app's configuration: defined in
// the protocol, re-exported here so `@rlm/executor/defaults` keeps offering it.
export { ANTHROPIC_EFFORTS } from '@rlm/protocol/core';
