/** The free catalog routes: GET /v1/models, /v1/schema, /v1/price (and POST), /v1/consult — all from the catalog data. */
import { createRoute, type OpenAPIHono, z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { lifecycleView, utcDay } from '../catalog/lifecycle.js';
import { resolveEntry } from '../catalog/resolve.js';
import { isLoadedCatalog, type LoadedCatalog } from '../catalog/served.js';
import type { PriceSummary } from '../catalog/summary.js';
import { type Catalog, type CatalogEntry, type JsonSchema, methodOf } from '../catalog/types.js';
import { parseJsonBody } from '../http/body.js';
import { BODY_LIMITS } from '../http/body-limits.js';
import type { AppEnv } from '../http/env.js';
import { ApiError, invalidInput } from '../http/errors.js';
import { exchangeOf } from '../http/exchange.js';
import { pickErrors } from '../http/openapi.js';
import { bearerToken } from '../rails/prepaid.js';

export interface CatalogRouteDeps {
  catalog: Catalog;
  /** Whether the entry can run on this server (its provider is configured). */
  isAvailable: (entry: CatalogEntry) => boolean;
  /** Why a model cannot be sold although its provider is configured (retired, not served upstream), if so. */
  unavailableReason?: (entry: CatalogEntry) => string | undefined;
  /** Grows when availability changes (a model list was read again): the listing is built again then. */
  availabilityVersion?: () => number;
}

const CONSULT_DEFAULT_LIMIT = 5;
const CONSULT_MAX_LIMIT = 20;

// ---------------------------------------------------------------------------------------------- OpenAPI shapes

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

const ModelsSchema = z
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
  })
  .openapi('InputSchema');

const QuoteSchema = z
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
    'Required input names and the JSON Schema of every input. `fileRef: true` marks inputs that take a public URL or base64.',
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

// ---------------------------------------------------------------------------------------------- handlers

function fileRefPaths(schema: JsonSchema, prefix = ''): string[] {
  const props = (schema.properties ?? {}) as Record<string, JsonSchema>;
  const out: string[] = [];
  for (const [name, prop] of Object.entries(props)) {
    const path = prefix + name;
    if (prop.fileRef || (prop.items as JsonSchema | undefined)?.fileRef) out.push(path);
    else if (prop.properties) out.push(...fileRefPaths(prop, `${path}.`));
  }
  return out;
}

/** File inputs of an entry, as dotted paths (`image_url`, `a.image_url`, `messages[].content[].image_url.url`). */
export function fileRefsOf(entry: CatalogEntry): string[] {
  if (entry.kind === 'model' && entry.chat)
    return entry.chat.vision ? ['messages[].content[].image_url.url'] : [];
  return fileRefPaths(entry.input);
}

function modelSummary(catalog: LoadedCatalog, deps: CatalogRouteDeps, entry: CatalogEntry) {
  if (entry.kind !== 'model') return undefined;
  const reason = deps.unavailableReason?.(entry);
  return {
    id: entry.id,
    name: entry.name,
    category: entry.category,
    route: entry.route,
    available: deps.isAvailable(entry),
    provider: entry.upstream.provider,
    output: entry.output,
    price: catalog.summary(entry),
    fileRefs: fileRefsOf(entry),
    ...(entry.aliases?.length ? { aliases: entry.aliases } : {}),
    ...(entry.priceUnconfirmed ? { priceUnconfirmed: true } : {}),
    ...(reason ? { unavailableReason: reason } : {}),
    ...lifecycleView(entry),
  };
}

/** The kasir process's start, in Unix seconds: the `created` of catalog models in the OpenAI list format. */
const LISTED_SINCE = Math.floor(Date.now() / 1000);

/** A model as the OpenAI list format has it (`owned_by` is the owner part of the id: `openai`, `meta-llama`). */
function openAiModel(entry: CatalogEntry) {
  return {
    id: entry.id,
    object: 'model' as const,
    created: LISTED_SINCE,
    owned_by: entry.id.slice(0, entry.id.indexOf('/')),
  };
}

/** A tool's, a recipe's or a free lookup's line in /v1/models (`kind` says which list asks). */
function flatSummary(
  catalog: LoadedCatalog,
  isAvailable: CatalogRouteDeps['isAvailable'],
  entry: CatalogEntry,
  kind: 'tool' | 'recipe' | 'lookup',
) {
  if (entry.kind !== kind) return undefined;
  return {
    id: entry.id,
    name: entry.name,
    category: entry.kind,
    method: methodOf(entry),
    path: entry.path ?? `/v1/${entry.id}`,
    available: isAvailable(entry),
    price: catalog.summary(entry) satisfies PriceSummary,
    fileRefs: fileRefsOf(entry),
    ...(entry.walletPriceNote ? { walletPriceNote: entry.walletPriceNote } : {}),
    ...(entry.kind === 'lookup' ? { free: true as const, readOnly: entry.readOnly } : {}),
  };
}

async function quoteResponse(
  catalog: LoadedCatalog,
  entry: CatalogEntry,
  given: Record<string, unknown>,
  fromQuery: boolean,
  bodyBytes: number,
  withKey: boolean,
): Promise<z.infer<typeof QuoteSchema>> {
  const checked = await catalog.validateForQuote(entry, given, fromQuery, bodyBytes);
  if (!checked.ok) throw invalidInput(checked.errors);
  const wallet = catalog.quote(entry, checked.value, 'wallet');
  // A model costs the same on every rail; a tool or recipe is quoted at what this caller will be charged.
  if (entry.kind === 'model') return { model: entry.id, ...wallet };
  const prepaid = catalog.quote(entry, checked.value, 'prepaid');
  if (withKey) return { model: entry.id, ...prepaid, rail: 'prepaid' };
  return {
    model: entry.id,
    ...wallet,
    rail: 'wallet',
    prepaidCostMicroUsd: prepaid.costMicroUsd,
    walletCostMicroUsd: wallet.costMicroUsd,
  };
}

/** Whether the request carries a prepaid key (it will be charged the prepaid price). */
const carriesKey = (c: Context<AppEnv>) => bearerToken(c.req.header('authorization')) !== null;

function parseLimit(raw: string | undefined): number {
  if (raw === undefined || raw === '') return CONSULT_DEFAULT_LIMIT;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1 || n > CONSULT_MAX_LIMIT) {
    throw invalidInput([{ field: 'limit', message: `must be an integer from 1 to ${CONSULT_MAX_LIMIT}` }]);
  }
  return n;
}

function queryParams(c: Context<AppEnv>): Record<string, unknown> {
  return { ...c.req.query() };
}

export function mountCatalogRoutes(app: OpenAPIHono<AppEnv>, deps: CatalogRouteDeps): void {
  const { catalog, isAvailable } = deps;
  if (!isLoadedCatalog(catalog)) throw new Error('the catalog routes need a catalog built by loadCatalog()');
  for (const route of [modelsRoute, modelRoute, schemaRoute, priceGetRoute, pricePostRoute, consultRoute]) {
    app.openAPIRegistry.registerPath(route);
  }

  // The list is built again only when the catalog (a self-hosted server's list) or availability changed.
  let models: z.infer<typeof ModelsSchema> | undefined;
  let builtFor = '';
  app.get('/v1/models', (c) => {
    // A sunset day passing while the process runs changes availability too.
    const version = `${catalog.version}:${deps.availabilityVersion?.() ?? 0}:${utcDay()}`;
    if (!models || builtFor !== version) {
      const rows = catalog.entries().flatMap((e) => modelSummary(catalog, deps, e) ?? []);
      models = {
        models: rows,
        tools: catalog.entries().flatMap((e) => flatSummary(catalog, isAvailable, e, 'tool') ?? []),
        recipes: catalog.entries().flatMap((e) => flatSummary(catalog, isAvailable, e, 'recipe') ?? []),
        lookups: catalog.lookups().flatMap((e) => flatSummary(catalog, isAvailable, e, 'lookup') ?? []),
        // OpenAI-compatible clients read `data`: the models that can be sold here now.
        object: 'list',
        data: catalog
          .models()
          .filter((e) => isAvailable(e))
          .map(openAiModel),
      };
      builtFor = version;
    }
    return c.json(models);
  });

  app.get('/v1/models/:id{.+}', (c) => {
    const entry = resolveEntry(catalog, decodeURIComponent(c.req.param('id')));
    const summary = modelSummary(catalog, deps, entry);
    if (!summary) throw new ApiError('model_not_found', `${entry.id} is not a model: see /v1/models`);
    return c.json({ ...summary, ...openAiModel(entry) });
  });

  app.get('/v1/schema', (c) => {
    const entry = resolveEntry(catalog, c.req.query('model'));
    return c.json({
      model: entry.id,
      required: (entry.input.required as string[] | undefined) ?? [],
      props: (entry.input.properties ?? {}) as Record<string, unknown>,
    });
  });

  app.get('/v1/price', async (c) => {
    const query = queryParams(c);
    const entry = resolveEntry(catalog, query.model);
    return c.json(await quoteResponse(catalog, entry, query, true, c.req.url.length, carriesKey(c)));
  });

  app.post('/v1/price', async (c) => {
    const raw = await exchangeOf(c).readBody(BODY_LIMITS.price);
    const body = parseJsonBody(raw);
    const entry = resolveEntry(catalog, body.model);
    return c.json(await quoteResponse(catalog, entry, body, false, raw.length, carriesKey(c)));
  });

  app.get('/v1/consult', (c) => {
    const intent = c.req.query('intent')?.trim();
    if (!intent)
      throw invalidInput([{ field: 'intent', message: 'is required (what you want to do, in plain words)' }]);
    if (intent.length > 500)
      throw invalidInput([{ field: 'intent', message: 'must be at most 500 characters' }]);
    const limit = parseLimit(c.req.query('limit'));
    // Whether each can run here, as the offer registry says (a free lookup always can).
    const candidates = catalog.consult(intent, limit).map(({ score: _score, ...rest }) => {
      const entry = catalog.find(rest.model ?? rest.tool ?? rest.recipe ?? '');
      const reason = entry ? deps.unavailableReason?.(entry) : undefined;
      return {
        ...rest,
        available: entry ? isAvailable(entry) : false,
        ...(reason ? { unavailableReason: reason } : {}),
        ...(entry ? lifecycleView(entry) : {}),
      };
    });
    return c.json({ intent, count: candidates.length, candidates });
  });
}

/** Model counts per category and a few example ids, for /skill.md. */
export function catalogFacts(catalog: Catalog): { categories: Record<string, number>; examples: string[] } {
  const categories: Record<string, number> = {};
  const examples: string[] = [];
  for (const m of catalog.models()) {
    categories[m.category] = (categories[m.category] ?? 0) + 1;
    if (categories[m.category] === 1) examples.push(m.id);
  }
  return { categories, examples };
}
