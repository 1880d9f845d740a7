import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { CreateMessageRequestSchema } from '@modelcontextprotocol/sdk/types.js';

/** What a test client's model answers to one sampled prompt (the text of its first message). */
export type SampleAnswer = (prompt: string) => string;

export interface SamplingClientOptions {
  /** The model name its sampling answers carry. @default 'client-model' */
  model?: string;
  /** Declares the roots capability (the test then answers `roots/list` itself). @default false */
  roots?: boolean;
}

/**
 * The SDK's own `Client`, for tests of an RLM served over MCP. Given `sampling`, it declares the
 * sampling capability and answers every `sampling/createMessage` with `sampling(prompt)`; without
 * it, it offers no sampling, so sub-calls need a configured model.
 *
 * @example
 * const client = samplingClient('my-test', (prompt) => prompt.toUpperCase());
 * await client.connect(transport);
 */
export function samplingClient(
  name: string,
  sampling?: SampleAnswer,
  { model = 'client-model', roots = false }: SamplingClientOptions = {},
): Client {
  const client = new Client(
    { name, version: '1.0.0' },
    {
      capabilities: {
        ...(sampling === undefined ? {} : { sampling: {} }),
        ...(roots ? { roots: { listChanged: true } } : {}),
      },
    },
  );
  if (sampling === undefined) return client;
  client.setRequestHandler(CreateMessageRequestSchema, (request) => {
    const content = request.params.messages[0]?.content;
    const prompt =
      content !== undefined && !Array.isArray(content) && content.type === 'text'
        ? content.text
        : '';
    return { role: 'assistant', model, content: { type: 'text', text: sampling(prompt) } };
  });
  return client;
}
