/** POST /v1/recipes/{name}: the multi-model pipelines, sold through the checkout as one call each. */
import { createRoute, z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { type CheckoutDeps, sell } from '../checkout/pipeline.js';
import type { Deps } from '../deps.js';
import { parseJsonBody } from '../http/body.js';
import { BODY_LIMITS } from '../http/body-limits.js';
import type { AppEnv } from '../http/env.js';
import { ApiError } from '../http/errors.js';
import { exchangeOf } from '../http/exchange.js';
import type { LaneApp } from '../http/lanes.js';
import { pickErrors } from '../http/openapi.js';

const recipeRoute = createRoute({
  method: 'post',
  path: '/v1/recipes/{name}',
  tags: ['recipes'],
  summary: 'Run a recipe: prompt → image → video in one call',
  description:
    'Body: `prompt` (required except on random-character) and optional `imageModel`, `videoModel`, `motionPrompt`, ' +
    '`duration` (seconds), `resolution`. The answer carries `recipe`, `costMicroUsd`, `steps` (each step with its ' +
    "model and output), `url` (the final video) and the receipt. Sold at the recipe's flat price; models chosen " +
    'instead of its own that cost more raise the quote to the sum of the steps. Charged only when every step succeeds.',
  request: {
    params: z.object({ name: z.string().openapi({ example: 'prompt-to-video' }) }),
    body: { required: true, content: { 'application/json': { schema: z.record(z.string(), z.unknown()) } } },
  },
  responses: {
    200: {
      description: "Every step's output and the final video's URL",
      content: { 'application/json': { schema: z.record(z.string(), z.unknown()) } },
    },
    ...pickErrors(400, 401, 402, 404, 409, 413, 429, 502, 503, 504),
  },
});

export function mountRecipeRoutes(app: LaneApp, deps: Deps, checkoutDeps: CheckoutDeps): void {
  app.openAPIRegistry.registerPath(recipeRoute);
  app.post('/v1/recipes/:name', (c: Context<AppEnv>) => {
    const x = exchangeOf(c);
    return sell(x, checkoutDeps, async () => {
      const name = decodeURIComponent(x.path.slice('/v1/recipes/'.length));
      const entry = deps.catalog.find(`recipes/${name}`);
      if (entry?.kind !== 'recipe') {
        const names = deps.catalog.recipes().map((r) => r.id.slice('recipes/'.length));
        throw new ApiError('not_found', `no recipe ${name}; recipes: ${names.join(', ')}`);
      }
      const raw = await x.readBody(BODY_LIMITS.recipes);
      return { offer: deps.offers.offerFor(entry), input: parseJsonBody(raw), rawBody: raw };
    });
  });
}
