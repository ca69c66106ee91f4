// The OpenAPI 3.1 document of the OpenAI-compatible endpoints (GET /openai/v1/openapi.json). Written
// here rather than generated from the REST table: these routes are not rows of the table (their
// request and answer shapes are OpenAI's, not translations of one GraphQL operation each), and their
// full schemas are OpenAI's own specification, which this document names rather than copies.
export const OPENAI_COMPAT_VERSION = '1';

const error = {
  description: "OpenAI's error shape",
  content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
};
const errors = (...statuses: number[]) => Object.fromEntries(statuses.map((status) => [String(status), error]));
const json = (schema: Record<string, unknown>, description: string) => ({ description, content: { 'application/json': { schema } } });
/** An answer that is JSON, or a server-sent event stream when the request asks to stream. */
const jsonOrStream = (schema: Record<string, unknown>, description: string) => ({
  description,
  content: { 'application/json': { schema }, 'text/event-stream': { schema: { type: 'string' } } },
});
const responseId = {
  name: 'id',
  in: 'path',
  required: true,
  description: 'the response id: a run id (`run_…`)',
  schema: { type: 'string' },
};
const bearer = [{ apiKey: [] }];

export function openAIOpenApiDocument() {
  return {
    openapi: '3.1.0',
    info: {
      title: 'Workspace Agent Service — OpenAI-compatible endpoints',
      version: OPENAI_COMPAT_VERSION,
      description:
        "A subset of OpenAI's Responses, Chat Completions and Models APIs over the workspace's agents and runs: a model is an agent " +
        '(its id or name), a response is a run. Errors answer `{"error": {"message", "type", "code", "param"}}`. ' +
        'What is supported and how it maps: docs/protocols/openai.md.',
    },
    servers: [{ url: '/openai/v1' }],
    security: bearer,
    paths: {
      '/models': {
        get: {
          operationId: 'openaiListModels',
          summary: 'The agents of the workspace as models',
          responses: { '200': json({ $ref: '#/components/schemas/ModelList' }, 'the list'), ...errors(401, 403, 429) },
        },
      },
      '/models/{model}': {
        get: {
          operationId: 'openaiRetrieveModel',
          summary: 'One agent as a model, by id or name',
          parameters: [{ name: 'model', in: 'path', required: true, schema: { type: 'string' } }],
          responses: { '200': json({ $ref: '#/components/schemas/Model' }, 'the model'), ...errors(401, 403, 404, 429) },
        },
      },
      '/responses': {
        post: {
          operationId: 'openaiCreateResponse',
          summary: 'Start a run of the agent named by `model` (or answer the function calls a response waits for)',
          requestBody: { required: true, content: { 'application/json': { schema: { $ref: '#/components/schemas/CreateResponse' } } } },
          responses: {
            '200': jsonOrStream(
              { $ref: '#/components/schemas/Response' },
              'the response (settled; at once with `background`), or its event stream with `stream`',
            ),
            ...errors(400, 401, 403, 404, 409, 429),
          },
        },
      },
      '/responses/{id}': {
        get: {
          operationId: 'openaiRetrieveResponse',
          summary: 'The response as it is now, or (stream=true) its event stream after `starting_after`',
          parameters: [
            responseId,
            { name: 'stream', in: 'query', schema: { type: 'boolean' } },
            {
              name: 'starting_after',
              in: 'query',
              description: 'the last sequence_number the client received',
              schema: { type: 'integer' },
            },
          ],
          responses: {
            '200': jsonOrStream({ $ref: '#/components/schemas/Response' }, 'the response, or its events'),
            ...errors(400, 401, 403, 404, 429),
          },
        },
      },
      '/responses/{id}/cancel': {
        post: {
          operationId: 'openaiCancelResponse',
          summary: 'Cancel the run',
          parameters: [responseId],
          responses: { '200': json({ $ref: '#/components/schemas/Response' }, 'the response'), ...errors(401, 403, 404, 409, 429) },
        },
      },
      '/chat/completions': {
        post: {
          operationId: 'openaiCreateChatCompletion',
          summary: 'A new run of the agent named by `model` on the messages (or the tool results of an earlier answer)',
          requestBody: {
            required: true,
            content: { 'application/json': { schema: { $ref: '#/components/schemas/CreateChatCompletion' } } },
          },
          responses: {
            '200': jsonOrStream(
              { type: 'object' },
              'a chat.completion, or chat.completion.chunk events ending with `data: [DONE]` when `stream` is true',
            ),
            ...errors(400, 401, 403, 404, 409, 429, 500),
          },
        },
      },
    },
    components: {
      securitySchemes: { apiKey: { type: 'http', scheme: 'bearer', description: 'a workspace API key' } },
      schemas: {
        Error: {
          type: 'object',
          required: ['error'],
          properties: {
            error: {
              type: 'object',
              required: ['message', 'type', 'code', 'param'],
              properties: {
                message: { type: 'string' },
                type: { type: 'string' },
                code: { type: ['string', 'null'] },
                param: { type: ['string', 'null'] },
              },
            },
          },
        },
        Model: {
          type: 'object',
          required: ['id', 'object', 'created', 'owned_by'],
          properties: {
            id: { type: 'string', description: 'the agent id' },
            object: { const: 'model' },
            created: { type: 'integer' },
            owned_by: { type: 'string' },
            name: { type: 'string' },
            description: { type: 'string' },
          },
        },
        ModelList: {
          type: 'object',
          properties: { object: { const: 'list' }, data: { type: 'array', items: { $ref: '#/components/schemas/Model' } } },
        },
        CreateResponse: {
          type: 'object',
          required: ['model'],
          properties: {
            model: { type: 'string', description: 'an agent id or name' },
            input: { oneOf: [{ type: 'string' }, { type: 'array', items: { type: 'object' } }] },
            instructions: { type: 'string', description: 'added after the agent’s instructions' },
            previous_response_id: { type: 'string' },
            stream: { type: 'boolean' },
            background: { type: 'boolean' },
          },
        },
        Response: {
          type: 'object',
          required: ['id', 'object', 'status', 'model', 'output'],
          properties: {
            id: { type: 'string' },
            object: { const: 'response' },
            created_at: { type: 'integer' },
            status: { enum: ['queued', 'in_progress', 'completed', 'incomplete', 'failed', 'cancelled'] },
            model: { type: 'string' },
            output: { type: 'array', items: { type: 'object' } },
            previous_response_id: { type: ['string', 'null'] },
            error: { type: ['object', 'null'] },
            usage: { type: ['object', 'null'] },
            metadata: { type: 'object', properties: { thread_id: { type: 'string' } } },
          },
        },
        CreateChatCompletion: {
          type: 'object',
          required: ['model', 'messages'],
          properties: {
            model: { type: 'string', description: 'an agent id or name' },
            messages: { type: 'array', items: { type: 'object' } },
            stream: { type: 'boolean' },
            stream_options: { type: 'object', properties: { include_usage: { type: 'boolean' } } },
            n: { const: 1 },
          },
        },
      },
    },
  };
}
