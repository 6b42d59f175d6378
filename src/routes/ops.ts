/** Operations routes: GET /healthz (checks the database and the key-value store) and GET /metrics (Prometheus). */
import { createRoute, type OpenAPIHono, z } from '@hono/zod-openapi';
import type { Deps } from '../deps.js';
import type { AppEnv } from '../http/env.js';
import { pingDb } from '../store/db.js';
import { within } from '../within.js';

const HealthSchema = z
  .object({
    status: z.enum(['ok', 'degraded']),
    checks: z.record(z.string(), z.string()),
  })
  .openapi('Health');

const healthRoute = createRoute({
  method: 'get',
  path: '/healthz',
  tags: ['operations'],
  summary: 'Liveness and database check',
  responses: {
    200: { description: 'Healthy', content: { 'application/json': { schema: HealthSchema } } },
    503: { description: 'A dependency is down', content: { 'application/json': { schema: HealthSchema } } },
  },
});

const metricsRoute = createRoute({
  method: 'get',
  path: '/metrics',
  tags: ['operations'],
  summary: 'Prometheus metrics',
  responses: {
    200: { description: 'Prometheus text format', content: { 'text/plain': { schema: z.string() } } },
  },
});

/**
 * How long a check waits. A store that stalls rather than fails (a database host that stopped answering) would
 * otherwise hold the health check as long as it holds the connection, and a probe learns nothing from a timeout
 * of its own: past this the check answers 503 naming the store.
 */
const CHECK_MS = 2_000;

async function check(fn: () => Promise<unknown>): Promise<string> {
  try {
    await within(fn(), CHECK_MS);
    return 'ok';
  } catch (err) {
    return `error: ${(err as Error).message}`;
  }
}

export function mountOpsRoutes(app: OpenAPIHono<AppEnv>, deps: Deps): void {
  app.openapi(healthRoute, async (c) => {
    const [database, kv] = await Promise.all([
      check(() => pingDb(deps.db)),
      check(() => deps.kv.get('healthz')),
    ]);
    const checks = { database, kv };
    const ok = Object.values(checks).every((v) => v === 'ok');
    return c.json({ status: ok ? ('ok' as const) : ('degraded' as const), checks }, ok ? 200 : 503);
  });
  app.openapi(metricsRoute, async (c) =>
    c.text(await deps.metrics.registry.metrics(), 200, { 'content-type': deps.metrics.registry.contentType }),
  );
}
