/** Builds the Hono app from the route modules; no logic of its own. */
import type { CheckoutDeps } from './checkout/pipeline.js';
import { mountDashboard } from './dashboard/routes.js';
import type { Deps } from './deps.js';
import { Edge } from './http/edge.js';
import { ApiError, invalidInput } from './http/errors.js';
import { LaneApp } from './http/lanes.js';
import { RateLimiter } from './http/rate-limit.js';
import { mountAdminRoutes } from './routes/admin.js';
import { catalogFacts, mountCatalogRoutes } from './routes/catalog.js';
import { mountChannelRoutes } from './routes/channels.js';
import { mountChatRoutes } from './routes/chat.js';
import { mountDiscoveryRoutes } from './routes/discovery.js';
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
          keyLimit: async (token) => {
            const key = await deps.keys.resolve(token);
            return key?.rateLimitPerMinute ? { id: key.keyId, perMinute: key.rateLimitPerMinute } : null;
          },
        })
      : null;
  const app = new LaneApp(new Edge(deps.log, deps.metrics, limiter), {
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
  mountLookupRoutes(app);
  mountKeyRoutes(app, deps);
  mountChannelRoutes(app, deps);
  const checkoutDeps: CheckoutDeps = {
    catalog: deps.catalog,
    rails: deps.rails,
    db: deps.db,
    metrics: deps.metrics,
    log: deps.log,
    publicBaseUrl: deps.config.publicBaseUrl,
    jobs: deps.jobs,
    metering: deps.config.mpp.channels && {
      trancheTokens: deps.config.mpp.channels.streamTrancheTokens,
      voucherWaitMs: deps.config.mpp.channels.voucherWaitMs,
    },
  };
  mountChatRoutes(app, deps, checkoutDeps);
  mountToolRoutes(app, deps, checkoutDeps);
  mountRecipeRoutes(app, deps, checkoutDeps);
  mountModelRoutes(app, deps, checkoutDeps);
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
  mountDiscoveryRoutes(app, () => ({
    baseUrl: deps.config.publicBaseUrl,
    rails: deps.rails.all().map((r) => r.describe(deps.config.publicBaseUrl)),
    catalog: catalogFacts(deps.catalog),
    // The wallet routes of every model and tool that can run here, once the x402 rail is on.
    x402Resources: deps.rails.all().some((r) => r.id === 'x402')
      ? deps.catalog
          .entries()
          .filter((e) => deps.offers.available(e))
          .map((e) => (e.kind === 'tool' ? `/x402/tools/${e.id}` : `/x402/${e.id}`))
      : [],
  }));

  app.notFound((c) =>
    c.json(new ApiError('not_found', `no route ${c.req.method} ${c.req.path}`).toBody(), 404),
  );
  return app;
}
