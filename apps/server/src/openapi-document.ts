import { jsonValueSchema, runEventSchema, trajectoryRecordSchema } from '@rlm/protocol';
import { z } from 'zod';
import { lastTurnViewSchema } from './agent-last-turn.js';
import {
  agentMessageRequestSchema,
  agentRecordSchema,
  createAgentRequestSchema,
  identityTagUpdateRequestSchema,
  layerRollbackRequestSchema,
  layerUpdateRequestSchema,
} from './agent-record.js';
import { skillUpdateRequestSchema } from './agent-skills.js';
import { OPERATIONS, type Operation } from './api-operations.js';
import {
  agentTurnViewSchema,
  chatCompletionViewSchema,
  contextViewSchema,
  errorBodySchema,
  exchangeViewSchema,
  promptLayerVersionViewSchema,
  promptLayerViewSchema,
  runPageSchema,
  runViewSchema,
  senderViewSchema,
} from './api-schemas.js';
import { chatCompletionRequestSchema } from './chat-completion-request.js';
import { responseViewSchema } from './routes/response-object.js';
import { responsesRequestSchema } from './routes/responses-request.js';
import { createRunRequestSchema, resumeRunRequestSchema } from './run-request.js';

const SCHEMAS: Record<string, z.ZodType> = {
  JsonValue: jsonValueSchema,
  Error: errorBodySchema,
  CreateRunRequest: createRunRequestSchema,
  ResumeRunRequest: resumeRunRequestSchema,
  Run: runViewSchema,
  RunPage: runPageSchema,
  RunEvent: runEventSchema,
  TrajectoryRecord: trajectoryRecordSchema,
  Context: contextViewSchema,
  ChatCompletionRequest: chatCompletionRequestSchema,
  ChatCompletion: chatCompletionViewSchema,
  ResponsesRequest: responsesRequestSchema,
  Response: responseViewSchema,
  CreateAgentRequest: createAgentRequestSchema,
  Agent: agentRecordSchema,
  AgentMessageRequest: agentMessageRequestSchema,
  AgentTurn: agentTurnViewSchema,
  Sender: senderViewSchema,
  Exchange: exchangeViewSchema,
  PromptLayer: promptLayerViewSchema,
  PromptLayerVersion: promptLayerVersionViewSchema,
  LayerUpdateRequest: layerUpdateRequestSchema,
  LayerRollbackRequest: layerRollbackRequestSchema,
  IdentityTagUpdateRequest: identityTagUpdateRequestSchema,
  SkillUpdateRequest: skillUpdateRequestSchema,
  AgentLastTurn: lastTurnViewSchema,
};

/**
 * The OpenAPI 3.1 document, generated from the zod schemas the handlers validate with
 * (`z.toJSONSchema` over a registry local to this call, so refs resolve to components).
 */
export function buildOpenApiDocument(version: string): Record<string, unknown> {
  const registry = z.registry<{ id: string }>();
  for (const [id, schema] of Object.entries(SCHEMAS)) registry.add(schema, { id });
  const converted = z.toJSONSchema(registry, {
    uri: (id) => `#/components/schemas/${id}`,
    io: 'input',
    unrepresentable: 'any',
  });
  const schemas = Object.fromEntries(
    Object.entries(converted.schemas).map(([id, schema]) => {
      const { $id: _id, $schema: _schema, ...rest } = schema as Record<string, unknown>;
      return [id, rest];
    }),
  );
  const paths: Record<string, Record<string, unknown>> = {};
  for (const operation of OPERATIONS) {
    paths[operation.path] ??= {};
    (paths[operation.path] as Record<string, unknown>)[operation.method] = toOperation(operation);
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'RLM server',
      version,
      description:
        'Recursive Language Model runs, OpenAI-compatible completions and long-lived agents.',
    },
    components: {
      schemas,
      securitySchemes: {
        apiKey: { type: 'http', scheme: 'bearer', description: 'rlm-server keys create' },
      },
    },
    paths,
  };
}

function toOperation(operation: Operation): Record<string, unknown> {
  const ref = (id: string) => ({ $ref: `#/components/schemas/${id}` });
  const parameters = [...operation.path.matchAll(/\{(\w+)\}/g)].map((match) => ({
    name: match[1],
    in: 'path',
    required: true,
    schema: { type: 'string' },
  }));
  const { response, body } = operation;
  const content =
    response.schema === undefined
      ? { [response.contentType ?? 'application/json']: {} }
      : { [response.contentType ?? 'application/json']: { schema: ref(response.schema) } };
  const errors =
    operation.auth === 'none'
      ? {}
      : {
          '400': {
            description: 'Invalid request',
            content: { 'application/json': { schema: ref('Error') } },
          },
          '401': {
            description: 'Missing, wrong or revoked key',
            content: { 'application/json': { schema: ref('Error') } },
          },
          '403': {
            description: 'Forbidden',
            content: { 'application/json': { schema: ref('Error') } },
          },
          '404': {
            description: 'Not found (or owned by another key)',
            content: { 'application/json': { schema: ref('Error') } },
          },
          '413': {
            description: 'Body too large',
            content: { 'application/json': { schema: ref('Error') } },
          },
          '429': {
            description: 'Rate or concurrency limit; see retry-after',
            content: { 'application/json': { schema: ref('Error') } },
          },
        };
  return {
    summary: operation.summary,
    tags: [operation.tag],
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(operation.auth === 'none' ? { security: [] } : { security: [{ apiKey: [] }] }),
    ...(body === undefined
      ? {}
      : {
          requestBody: {
            required: true,
            content:
              typeof body === 'string'
                ? { 'application/json': { schema: ref(body) } }
                : {
                    [body.contentType]: {
                      schema: { type: 'string', description: body.description },
                    },
                  },
          },
        }),
    responses: {
      [String(response.status)]: {
        description: response.description ?? operation.summary,
        content,
      },
      ...errors,
    },
  };
}
