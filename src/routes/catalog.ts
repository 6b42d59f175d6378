/** The free catalog routes: GET /v1/models, /v1/schema, /v1/price (and POST), /v1/consult — all from the catalog data. */
import type { OpenAPIHono, z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { lifecycleView, utcDay } from '../catalog/lifecycle.js';
import { resolveEntry } from '../catalog/resolve.js';
import { isLoadedCatalog, type LoadedCatalog } from '../catalog/served.js';
import type { Catalog, CatalogEntry } from '../catalog/types.js';
import { parseJsonBody } from '../http/body.js';
import { BODY_LIMITS } from '../http/body-limits.js';
import type { AppEnv } from '../http/env.js';
import { ApiError, invalidInput } from '../http/errors.js';
import { exchangeOf } from '../http/exchange.js';
import { bearerToken } from '../rails/prepaid.js';
import { type Availability, flatSummary, modelSummary, openAiModel } from './catalog-listing.js';
import {
  CATALOG_ROUTE_DOCS,
  CONSULT_DEFAULT_LIMIT,
  CONSULT_MAX_LIMIT,
  type ModelsSchema,
  type QuoteSchema,
} from './catalog-openapi.js';

export interface CatalogRouteDeps extends Availability {
  catalog: Catalog;
  /** Grows when availability changes (a model list was read again): the listing is built again then. */
  availabilityVersion?: () => number;
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
  for (const route of CATALOG_ROUTE_DOCS) app.openAPIRegistry.registerPath(route);

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

  // Every catalog entry is described, whether or not it can run here; `available` is the offer registry's verdict,
  // the one that puts an entry in MCP tools/list, skill.md and llms.txt (and /v1/models' and consult's flags).
  app.get('/v1/schema', (c) => {
    const entry = resolveEntry(catalog, c.req.query('model'));
    const reason = deps.unavailableReason?.(entry);
    return c.json({
      model: entry.id,
      required: (entry.input.required as string[] | undefined) ?? [],
      props: (entry.input.properties ?? {}) as Record<string, unknown>,
      available: isAvailable(entry),
      ...(reason ? { unavailableReason: reason } : {}),
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
