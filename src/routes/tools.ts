/** POST /v1/tools/{name}: the paid tools, sold through the checkout; the answer spreads the tool's own fields. */
import { createRoute, z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { resolveEntry } from '../catalog/resolve.js';
import { type CheckoutDeps, sell } from '../checkout/pipeline.js';
import type { Deps } from '../deps.js';
import { parseJsonBody } from '../http/body.js';
import { BODY_LIMITS } from '../http/body-limits.js';
import type { AppEnv } from '../http/env.js';
import { ApiError } from '../http/errors.js';
import { exchangeOf } from '../http/exchange.js';
import type { LaneApp } from '../http/lanes.js';
import { pickErrors } from '../http/openapi.js';

const toolRoute = createRoute({
  method: 'post',
  path: '/v1/tools/{name}',
  tags: ['tools'],
  summary: 'Run a paid tool',
  description:
    "Body: the tool's input (GET /v1/schema?model=tools/<name>; extra properties are allowed). The answer carries " +
    "`tool`, `costMicroUsd`, the receipt and the tool's own fields. Charged only on success, at the prepaid price on " +
    'a key and the wallet price on the wallet rails.',
  request: {
    params: z.object({ name: z.string().openapi({ example: 'exchange-rate' }) }),
    body: { required: true, content: { 'application/json': { schema: z.record(z.string(), z.unknown()) } } },
  },
  responses: {
    200: {
      description: "The tool's answer",
      content: { 'application/json': { schema: z.record(z.string(), z.unknown()) } },
    },
    ...pickErrors(400, 401, 402, 404, 409, 413, 429, 502, 503, 504),
  },
});

export function mountToolRoutes(app: LaneApp, deps: Deps, checkoutDeps: CheckoutDeps): void {
  app.openAPIRegistry.registerPath(toolRoute);
  app.post('/v1/tools/:name', (c: Context<AppEnv>) => {
    const x = exchangeOf(c);
    return sell(x, checkoutDeps, async () => {
      const name = decodeURIComponent(x.path.slice('/v1/tools/'.length));
      const entry = resolveEntry(deps.catalog, `tools/${name}`, 'tool');
      // A free lookup is called with GET at this same path (routes/lookups.ts).
      if (entry.kind === 'lookup') {
        throw new ApiError(
          'method_not_allowed',
          `POST is not allowed on ${x.path}; use GET`,
          { allow: ['GET'] },
          {
            allow: 'GET',
          },
        );
      }
      if (entry.kind !== 'tool') throw new ApiError('not_found', `no tool ${name}: see GET /v1/tools`);
      const raw = await x.readBody(BODY_LIMITS.tools);
      return { offer: deps.offers.offerFor(entry), input: parseJsonBody(raw), rawBody: raw };
    });
  });
}
