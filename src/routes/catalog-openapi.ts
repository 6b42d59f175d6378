/** The catalog routes' OpenAPI description: the shapes of /v1/models, /v1/schema, /v1/price and /v1/consult answers. */
import { createRoute, z } from '@hono/zod-openapi';
import { pickErrors } from '../http/openapi.js';

export const CONSULT_DEFAULT_LIMIT = 5;
export const CONSULT_MAX_LIMIT = 20;

const PriceSummarySchema = z
  .object({
    unit: z.string().openapi({ example: 'second' }),
    rateMicroUsd: z.number().int().openapi({ description: 'Highest rate, micro-USD per `per` units' }),
    per: z.number().int(),
    inputRateMicroUsd: z
      .number()
      .int()
      .optional()
      .openapi({ description: 'Chat: input rate per `per` tokens' }),
    prepaidMicroUsd: z
      .number()
      .int()
      .optional()
      .openapi({ description: 'Tools and recipes: price on the prepaid-key rail' }),
    minMicroUsd: z.number().int(),
    maxMicroUsd: z.number().int(),
  })
  .openapi('PriceSummary');

const ModelSummarySchema = z
  .object({
    id: z.string().openapi({ example: 'google/veo-3.1' }),
    name: z.string(),
    category: z.string().openapi({ example: 'text-to-video' }),
    route: z.string().openapi({ example: '/v1/video/generations' }),
    available: z.boolean(),
    provider: z.string(),
    output: z.string(),
    price: PriceSummarySchema,
    fileRefs: z.array(z.string()),
    aliases: z.array(z.string()).optional(),
    priceUnconfirmed: z.boolean().optional(),
    unavailableReason: z
      .string()
      .optional()
      .openapi({ description: 'Why the model cannot be sold now although its provider is configured' }),
    deprecated: z
      .union([z.string(), z.literal(true)])
      .optional()
      .openapi({ description: 'Day (UTC) its provider deprecated it, or true when it gave no date' }),
    sunset: z.string().optional().openapi({
      description: 'Day (UTC) its provider stops serving it; from then on calls answer 410 model_retired',
    }),
    successor: z.string().optional().openapi({ description: 'The catalog model to use instead' }),
    retired: z.boolean().optional(),
  })
  .openapi('ModelSummary');

const OpenAiModelSchema = z
  .object({
    id: z.string(),
    object: z.literal('model'),
    created: z.number().int().openapi({ description: 'Unix seconds' }),
    owned_by: z.string(),
  })
  .openapi('OpenAiModel');

const ToolSummarySchema = z
  .object({
    id: z.string().openapi({ example: 'tools/search' }),
    name: z.string(),
    category: z.enum(['tool', 'recipe', 'lookup']),
    method: z
      .enum(['GET', 'POST'])
      .openapi({ description: 'GET (a lookup): the input goes in the query string' }),
    path: z.string().openapi({ example: '/v1/tools/search' }),
    available: z.boolean(),
    price: PriceSummarySchema,
    fileRefs: z.array(z.string()),
    walletPriceNote: z.string().optional(),
    free: z.literal(true).optional().openapi({ description: 'Given free: no payment, no key' }),
    readOnly: z.literal(true).optional().openapi({ description: 'Only reads: changes nothing' }),
  })
  .openapi('ToolSummary');

export const ModelsSchema = z
  .object({
    models: z.array(ModelSummarySchema),
    tools: z.array(ToolSummarySchema),
    recipes: z.array(ToolSummarySchema).openapi({
      description: 'Multi-model pipelines sold as one call (POST /v1/recipes/<name>)',
    }),
    lookups: z.array(ToolSummarySchema).openapi({
      description:
        'The free lookups: GET with the input as query parameters, no payment (GET /v1/tools/<name>)',
    }),
    object: z.literal('list').openapi({ description: 'The OpenAI list format, for SDKs and chat UIs' }),
    data: z.array(OpenAiModelSchema).openapi({
      description: 'Every model that can be sold here, in the OpenAI list format (`models.list()`)',
    }),
  })
  .openapi('Models');

const SchemaDescriptorSchema = z
  .object({
    model: z.string(),
    required: z.array(z.string()),
    props: z
      .record(z.string(), z.unknown())
      .openapi({ description: 'JSON Schema of each input; fileRef marks file inputs' }),
    available: z.boolean().openapi({
      description: 'Whether this server can run it now (exactly the entries MCP tools/list lists)',
    }),
    unavailableReason: z.string().optional(),
  })
  .openapi('InputSchema');

export const QuoteSchema = z
  .object({
    model: z.string(),
    costMicroUsd: z.number().int().openapi({ example: 3200000 }),
    unit: z.string().openapi({ example: 'second' }),
    units: z.number().openapi({ example: 8 }),
    rail: z
      .enum(['prepaid', 'wallet'])
      .optional()
      .openapi({
        description:
          'Tools and recipes, whose price depends on the rail: the rail `costMicroUsd` is the price on (prepaid ' +
          'when the request carries `Authorization: Bearer <key>`, else wallet)',
      }),
    prepaidCostMicroUsd: z
      .number()
      .int()
      .optional()
      .openapi({ description: 'Tools and recipes, asked without a key: the price on the prepaid-key rail' }),
    walletCostMicroUsd: z
      .number()
      .int()
      .optional()
      .openapi({ description: 'Tools and recipes, asked without a key: the price on the wallet rails' }),
  })
  .openapi('PriceQuote');

const CandidateSchema = z
  .object({
    method: z.enum(['GET', 'POST']),
    path: z.string(),
    kind: z.enum(['model', 'tool', 'recipe', 'lookup']),
    model: z.string().optional(),
    tool: z.string().optional(),
    recipe: z.string().optional(),
    name: z.string(),
    category: z.string(),
    why: z.string(),
    free: z.boolean(),
    available: z.boolean().openapi({ description: 'Whether this server can run it now' }),
    unavailableReason: z.string().optional(),
    deprecated: z.union([z.string(), z.literal(true)]).optional(),
    sunset: z.string().optional(),
    successor: z.string().optional(),
    retired: z.boolean().optional(),
    price: PriceSummarySchema,
    example: z
      .record(z.string(), z.unknown())
      .openapi({ description: 'JSON body (POST) or query parameters (GET)' }),
  })
  .openapi('ConsultCandidate');

const ConsultSchema = z
  .object({ intent: z.string(), count: z.number().int(), candidates: z.array(CandidateSchema) })
  .openapi('Consult');

const modelQuery = z.object({
  model: z
    .string()
    .min(1)
    .openapi({ description: 'Model id, alias (e.g. a full run id) or tool id', example: 'google/veo-3.1' }),
});

const modelsRoute = createRoute({
  method: 'get',
  path: '/v1/models',
  tags: ['catalog'],
  summary: 'Every model and tool with its price summary',
  description:
    'Models are in `models`, each with its category, capability route (every model is also sold on POST /v1/infer), ' +
    'provider, whether this server can run it (`available`), the inputs that take a file (`fileRefs`) and a price ' +
    'summary: unit, highest rate per `per` units, and the cheapest and dearest call in micro-USD. ' +
    "`priceUnconfirmed` marks upstream prices not seen on the provider's own page. Paid tools are listed apart in " +
    '`tools` (category `tool`), with the wallet price as `rateMicroUsd` and the prepaid-key price as `prepaidMicroUsd`.',
  responses: {
    200: { description: 'The catalog', content: { 'application/json': { schema: ModelsSchema } } },
    ...pickErrors(429),
  },
});

const modelRoute = createRoute({
  method: 'get',
  path: '/v1/models/{id}',
  tags: ['catalog'],
  summary: 'One model: its summary, lifecycle and availability',
  description:
    'The line /v1/models has for this model (by id or alias; ids hold slashes, e.g. /v1/models/openai/gpt-4.1), ' +
    'plus `object: "model"`, `created` and `owned_by` as OpenAI clients read them (`models.retrieve()`). A retired ' +
    'model is still described here, with `sunset` and `successor`.',
  request: { params: z.object({ id: z.string().openapi({ example: 'openai/gpt-4.1-mini' }) }) },
  responses: {
    200: {
      description: 'The model',
      content: { 'application/json': { schema: ModelSummarySchema.merge(OpenAiModelSchema) } },
    },
    ...pickErrors(404, 429),
  },
});

const schemaRoute = createRoute({
  method: 'get',
  path: '/v1/schema',
  tags: ['catalog'],
  summary: 'The inputs a model or tool takes',
  description:
    'Required input names and the JSON Schema of every input. `fileRef: true` marks inputs that take a public URL ' +
    'or base64. Every catalog entry is described; `available` says whether this server can run it now.',
  request: { query: modelQuery },
  responses: {
    200: {
      description: 'Input descriptor',
      content: { 'application/json': { schema: SchemaDescriptorSchema } },
    },
    ...pickErrors(400, 404, 429),
  },
});

const priceDescription =
  'The exact price in micro-USD of one call with these inputs (1 USD = 1,000,000), the same amount a paid route ' +
  'charges. With `model` alone it quotes the default request; inputs that do not change the price (such as the ' +
  'prompt) are not needed. Inputs that are given are validated exactly as the paid route validates them (400 with ' +
  'one error per field). Dynamic prices quote the ceiling: e.g. chat bills estimated input tokens plus max_tokens ' +
  '(default 1024). Every call costs at least $0.0001; an input that would cost more than $60 is refused as invalid. ' +
  'Tools and recipes are priced per rail: a request carrying `Authorization: Bearer <key>` is quoted the ' +
  'prepaid price (the key is not checked here); one without a key is quoted the wallet price, with both prices ' +
  'labelled (`prepaidCostMicroUsd`, `walletCostMicroUsd`).';

const priceGetRoute = createRoute({
  method: 'get',
  path: '/v1/price',
  tags: ['catalog'],
  summary: 'Quote one call (inputs as query parameters)',
  description: `${priceDescription} Pass each input as a query parameter; object and array inputs as JSON.`,
  request: { query: modelQuery },
  responses: {
    200: { description: 'Quote', content: { 'application/json': { schema: QuoteSchema } } },
    ...pickErrors(400, 404, 429),
  },
});

const pricePostRoute = createRoute({
  method: 'post',
  path: '/v1/price',
  tags: ['catalog'],
  summary: 'Quote one call (inputs as a JSON body)',
  description: `${priceDescription} Send the body you would send to the paid route, with \`model\`.`,
  request: {
    body: {
      required: true,
      content: {
        'application/json': {
          schema: z
            .object({ model: z.string().min(1) })
            .catchall(z.unknown())
            .openapi({ example: { model: 'openai/tts-1', input: 'Halo!', voice: 'alloy' } }),
        },
      },
    },
  },
  responses: {
    200: { description: 'Quote', content: { 'application/json': { schema: QuoteSchema } } },
    ...pickErrors(400, 404, 413, 429),
  },
});

const consultRoute = createRoute({
  method: 'get',
  path: '/v1/consult',
  tags: ['catalog'],
  summary: 'Which endpoint does what I want? (never runs anything)',
  description:
    'Ranked candidate endpoints for a plain-words intent (English or Indonesian): models, paid tools and the free ' +
    'Indonesian lookups. Each has the method and path to call, the model or tool id, why it matched, its price ' +
    'summary, whether this server can run it now (`available`) and a minimal example (the JSON body for POST, ' +
    'the query parameters for GET).',
  request: {
    query: z.object({
      intent: z.string().min(1).openapi({ example: 'turn a photo into a short video' }),
      limit: z
        .string()
        .optional()
        .openapi({ description: 'Candidates to return, 1..20 (default 5)', example: '5' }),
    }),
  },
  responses: {
    200: {
      description: 'Candidates, best first',
      content: { 'application/json': { schema: ConsultSchema } },
    },
    ...pickErrors(400, 429),
  },
});

/** Every catalog route's description, registered with the OpenAPI document. */
export const CATALOG_ROUTE_DOCS = [
  modelsRoute,
  modelRoute,
  schemaRoute,
  priceGetRoute,
  pricePostRoute,
  consultRoute,
];
