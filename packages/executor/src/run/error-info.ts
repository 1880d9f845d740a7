// Defined once in the protocol; the executor's modules import it from here.
export { errorInfo } from '@rlm/protocol';
