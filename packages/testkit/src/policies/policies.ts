import { chunkAndAggregate } from './chunk-and-aggregate.js';
import { delegateToChild } from './delegate-to-child.js';
import { needleFinder } from './needle-finder.js';

/**
 * Rule-based policies: functions of the conversation that write real ```repl code for the RLM
 * loop and answer their own sub-calls, so end-to-end tests run the loop, the sandbox and
 * recursion without a real model. Use one as a `scriptedModel` script or a fake server script.
 */
export const policies = { needleFinder, chunkAndAggregate, delegateToChild } as const;
