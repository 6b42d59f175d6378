/** Builds the Hono app from the route modules; no logic of its own. */
import { isFree, methodOf, pathOf } from './catalog/types.js';
import type { CheckoutDeps } from './checkout/pipeline.js';
import { mountDashboard } from './dashboard/routes.js';
import type { Deps } from './deps.js';
import { Edge } from './http/edge.js';
import { ApiError, invalidInput } from './http/errors.js';
import { LaneApp } from './http/lanes.js';
import { allowedMethods } from './http/method-not-allowed.js';
import { RateLimiter } from './http/rate-limit.js';
import { mountMcpRoutes } from './mcp/route.js';
import { mountAdminRoutes } from './routes/admin.js';
import { mountCatalogRoutes } from './routes/catalog.js';
import { catalogFacts } from './routes/catalog-listing.js';
import { mountChannelRoutes } from './routes/channels.js';
import { mountChatRoutes } from './routes/chat.js';
import { mountDiscoveryRoutes } from './routes/discovery.js';
import { mountHomeRoutes } from './routes/home.js';
import { mountKeyRoutes } from './routes/keys.js';
import { mountLookupRoutes } from './routes/lookups.js';
import { mountMediaRoutes } from './routes/media.js';
import { mountModelRoutes } from './routes/models.js';
import { mountOpsRoutes } from './routes/ops.js';
import { mountRecipeRoutes } from './routes/recipes.js';
import { mountToolRoutes } from './routes/tools.js';
import { mountTopupNotification } from './routes/topup-notification.js';
import { mountWalletRoutes } from './routes/wallet.js';
import { openTopupGateway } from './topup/open.js';

export function createApp(deps: Deps): LaneApp {
  // A limit of 0 turns rate limiting off, key limits included: then there is no limiter at all.
  const limiter =
    deps.config.rateLimitPerMinute > 0
      ? new RateLimiter({
          perMinute: deps.config.rateLimitPerMinute,
          trustProxy: deps.config.trustProxy,
          kv: deps.kv,
          log: deps.log,
          keyLimit: async (token) => {
            const key = await deps.keys.resolve(token);
            return key?.rateLimitPerMinute ? { id: key.keyId, perMinute: key.rateLimitPerMinute } : null;
          },
        })
      : null;
  const app = new LaneApp(new Edge(deps.log, deps.metrics, limiter, deps.config.corsOrigins), {
    // zod validation failures of declared route schemas become the one 400 shape, naming each field.
    defaultHook: (result) => {
      if (!result.success) {
        throw invalidInput(
          result.error.issues.map((i) => ({ field: i.path.join('.') || '(body)', message: i.message })),
        );
      }
    },
  });

  mountOpsRoutes(app, deps);
  mountMediaRoutes(app, deps);
  mountKeyRoutes(app, deps);
  mountChannelRoutes(app, deps);
  const { channels } = deps;
  const checkoutDeps: CheckoutDeps = {
    catalog: deps.catalog,
    rails: deps.rails,
    db: deps.db,
    metrics: deps.metrics,
    log: deps.log,
    publicBaseUrl: deps.config.publicBaseUrl,
    jobs: deps.jobs,
    recordUsage: (usage) => deps.reserves.recordUsage(usage),
    metering: deps.config.mpp.channels && {
      trancheTokens: deps.config.mpp.channels.streamTrancheTokens,
      voucherWaitMs: deps.config.mpp.channels.voucherWaitMs,
    },
    manage: channels?.manage,
  };
  mountChatRoutes(app, deps, checkoutDeps);
  mountLookupRoutes(app, deps, checkoutDeps);
  mountToolRoutes(app, deps, checkoutDeps);
  mountRecipeRoutes(app, deps, checkoutDeps);
  mountModelRoutes(app, deps, checkoutDeps);
  // Ahead of the wallet routes, whose `/x402/{model}` would otherwise take `/x402/mcp`.
  mountMcpRoutes(app, {
    catalog: deps.catalog,
    offers: deps.offers,
    availabilityVersion: () => deps.modelWatch?.version ?? 0,
  });
  mountWalletRoutes(app, deps, checkoutDeps);
  if (deps.config.adminToken) mountAdminRoutes(app, deps, deps.config.adminToken);
  const topupGateway = openTopupGateway(deps.config);
  if (topupGateway) mountTopupNotification(app, deps, topupGateway);
  mountDashboard(app, deps, topupGateway);
  mountCatalogRoutes(app, {
    catalog: deps.catalog,
    isAvailable: (e) => deps.offers.available(e),
    unavailableReason: (e) => deps.offers.unavailableReason(e),
    availabilityVersion: () => deps.modelWatch?.version ?? 0,
  });
  mountHomeRoutes(app, {
    baseUrl: deps.config.publicBaseUrl,
    rails: () => deps.rails.all().map((r) => r.id),
  });
  mountDiscoveryRoutes(app, () => ({
    baseUrl: deps.config.publicBaseUrl,
    rails: deps.rails.all().map((r) => r.describe(deps.config.publicBaseUrl)),
    catalog: catalogFacts(deps.catalog),
    // The wallet routes of every paid entry the offer registry offers here, once x402 pays /x402/* (a tool's id is
    // `tools/<name>`, so its route is /x402/tools/<name>).
    x402Resources: deps.rails.walletOff('/x402/')
      ? []
      : deps.offers
          .offered()
          .filter((e) => !isFree(e))
          .map((e) => `/x402/${e.id}`),
    entries: deps.offers.offered().map((e) => ({
      id: e.id,
      name: e.name,
      category: e.kind === 'model' ? e.category : e.kind,
      route: `${methodOf(e)} ${pathOf(e)}`,
    })),
  }));

  // A path served with other methods is a 405 naming them (`Allow`); a path no route serves, a 404.
  const allowed = allowedMethods(() => app.routes);
  app.notFound((c) => {
    const allow = allowed(c.req.path);
    if (allow.length > 0) {
      const error = new ApiError(
        'method_not_allowed',
        `${c.req.method} is not allowed on ${c.req.path}; use ${allow.join(', ')}`,
        { allow },
      );
      return c.json(error.toBody(), 405, { allow: allow.join(', ') });
    }
    return c.json(new ApiError('not_found', `no route ${c.req.method} ${c.req.path}`).toBody(), 404);
  });
  return app;
}
