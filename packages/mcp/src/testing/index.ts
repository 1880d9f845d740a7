/** @packageDocumentation Test helpers for code that serves or calls an RLM over MCP. */
export {
  type SampleAnswer,
  type SamplingClientOptions,
  samplingClient,
} from './sampling-client.js';
