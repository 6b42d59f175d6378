/** Operations routes: GET /healthz (checks the database and the key-value store) and GET /metrics (Prometheus). */
import { createRoute, type OpenAPIHono, z } from '@hono/zod-openapi';
import type { Deps } from '../deps.js';
import type { AppEnv } from '../http/env.js';
import { pingDb } from '../store/db.js';

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

async function check(fn: () => Promise<unknown>): Promise<string> {
  try {
    await fn();
    return 'ok';
  } catch (err) {
    return `error: ${(err as Error).message}`;
  }
}

export function mountOpsRoutes(app: OpenAPIHono<AppEnv>, deps: Deps): void {
  app.openapi(healthRoute, async (c) => {
    const checks = {
      database: await check(() => pingDb(deps.db)),
      kv: await check(() => deps.kv.get('healthz')),
    };
    const ok = Object.values(checks).every((v) => v === 'ok');
    return c.json({ status: ok ? ('ok' as const) : ('degraded' as const), checks }, ok ? 200 : 503);
  });
  app.openapi(metricsRoute, async (c) =>
    c.text(await deps.metrics.registry.metrics(), 200, { 'content-type': deps.metrics.registry.contentType }),
  );
}
