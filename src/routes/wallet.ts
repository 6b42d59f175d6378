/**
 * The per-chain wallet routes: `POST /x402/{model}` (USDC on Base and Solana), `/a402/{model}` (Algorand),
 * `/b402/{model}` (BNB Smart Chain), paid tools at their wallet price (`/x402/tools/{name}`), and the two generic
 * x402 routes at flat prices (`/x402/images`, `/x402/speech`). The body is the model's (or tool's) own input; the
 * answer is `{ model | tool, costMicroUsd, output, receipt }`. Sold through the one checkout, on the x402 rail only.
 */
import { createRoute, z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { resolveEntry } from '../catalog/resolve.js';
import { type CatalogEntry, isFree, type Quote } from '../catalog/types.js';
import { type CheckoutDeps, type Sale, sell } from '../checkout/pipeline.js';
import { X402_FAMILIES, type X402Family } from '../config/x402.js';
import type { Deps } from '../deps.js';
import { parseJsonBody } from '../http/body.js';
import { BODY_LIMITS } from '../http/body-limits.js';
import type { AppEnv } from '../http/env.js';
import { ApiError, invalidInput } from '../http/errors.js';
import { type Exchange, exchangeOf } from '../http/exchange.js';
import type { LaneApp } from '../http/lanes.js';
import { pickErrors } from '../http/openapi.js';
import { inlineFileAliases } from '../offers/media-files.js';

interface GenericRoute {
  category: string;
  defaultModel: string;
  flatMicroUsd: number;
  summary: string;
}

/** The generic x402 routes: a fixed default model, a flat price, and the category a chosen model must be of. */
export const GENERIC_ROUTES = {
  images: {
    category: 'text-to-image',
    defaultModel: 'black-forest-labs/flux-schnell@fal',
    flatMicroUsd: 46_440,
    summary:
      'Text-to-image at a flat $0.046440 (default FLUX.1 [schnell]; `model` picks another that costs no more)',
  },
  speech: {
    category: 'text-to-speech',
    defaultModel: 'openai/gpt-4o-mini-tts',
    flatMicroUsd: 14_000,
    summary:
      'Text-to-speech at a flat $0.014000 (default gpt-4o-mini-tts; `model` picks another that costs no more)',
  },
} as const satisfies Record<string, GenericRoute>;

const FAMILY_SUMMARY: Record<X402Family, string> = {
  x402: 'One model, paid per call with x402 (USDC on Base or Solana)',
  a402: 'One model, paid per call with x402 on Algorand (USDC, gasless)',
  b402: 'One model, paid per call with x402 on BNB Smart Chain (gasless stablecoins)',
};

/** The OpenAPI description of a wallet route (the body is the model's or tool's own input: GET /v1/schema). */
function docs(path: string, params: string[], summary: string) {
  return createRoute({
    method: 'post',
    path,
    tags: ['x402'],
    summary,
    description:
      "Body: the model's (or tool's) own input, as GET /v1/schema lists it. Unpaid: 402 with PAYMENT-REQUIRED. " +
      'Paid (PAYMENT-SIGNATURE): `{ model | tool, costMicroUsd, output, receipt }` with PAYMENT-RESPONSE; settled only on success.',
    request: {
      ...(params.length ? { params: z.object(Object.fromEntries(params.map((p) => [p, z.string()]))) } : {}),
      body: {
        required: true,
        content: { 'application/json': { schema: z.record(z.string(), z.unknown()) } },
      },
    },
    responses: {
      200: {
        description: 'The result, nested under `output`',
        content: { 'application/json': { schema: z.record(z.string(), z.unknown()) } },
      },
      ...pickErrors(400, 402, 404, 409, 413, 429, 502, 503, 504),
    },
  });
}

/** The flat price of a generic route, refusing (400, before any payment) a call that would cost more. */
function flatPrice(route: keyof typeof GENERIC_ROUTES, entry: CatalogEntry) {
  const { flatMicroUsd } = GENERIC_ROUTES[route];
  return (quote: Quote): Quote => {
    if (quote.costMicroUsd > flatMicroUsd) {
      throw new ApiError(
        'invalid_input',
        `${entry.id} costs ${quote.costMicroUsd} micro-USD for this input, more than this route's flat ${flatMicroUsd}; call POST /x402/${entry.id} (priced for this input) or /v1/infer`,
        [{ field: 'model', message: `costs more than the flat ${flatMicroUsd} micro-USD of /x402/${route}` }],
      );
    }
    return { costMicroUsd: flatMicroUsd, unit: 'call', units: 1 };
  };
}

export function mountWalletRoutes(app: LaneApp, deps: Deps, checkoutDeps: CheckoutDeps): void {
  /**
   * A wallet route: `pick` works out the entry and its input from the path and the parsed body; the answer nests
   * the result under `output`.
   */
  const selling =
    (
      pick: (
        x: Exchange,
        body: Record<string, unknown>,
      ) => Pick<Sale, 'input' | 'price'> & { entry: CatalogEntry },
      limit: number = BODY_LIMITS.chat,
    ) =>
    (c: Context<AppEnv>) => {
      const x = exchangeOf(c);
      return sell(x, checkoutDeps, async () => {
        const raw = await x.readBody(limit);
        const { entry, ...picked } = pick(x, parseJsonBody(raw));
        // The wallet routes sell; a free entry is given at its own path, with no payment to make.
        if (entry.kind !== 'model' && isFree(entry))
          throw new ApiError('not_found', `${entry.id} is free: call it at ${entry.path}`);
        // The spec's input names (`image`, `video_uri`, `text`, `image_base64`, …), as on /v1/infer.
        if (entry.kind === 'model' && entry.category !== 'chat') await inlineFileAliases(entry, picked.input);
        return { offer: deps.offers.offerFor(entry), rawBody: raw, nestOutput: true, ...picked };
      });
    };

  for (const [name, route] of Object.entries(GENERIC_ROUTES) as Array<
    [keyof typeof GENERIC_ROUTES, GenericRoute]
  >) {
    const path = `/x402/${name}`;
    app.openAPIRegistry.registerPath(docs(path, [], route.summary));
    app.post(
      path,
      selling((_x, body) => {
        const entry = resolveEntry(deps.catalog, body.model ?? route.defaultModel);
        if (entry.kind !== 'model' || entry.category !== route.category) {
          throw invalidInput([{ field: 'model', message: `${entry.id} is not a ${route.category} model` }]);
        }
        const { model: _model, ...input } = body;
        return { entry, input, price: flatPrice(name, entry) };
      }),
    );
  }

  app.openAPIRegistry.registerPath(docs('/x402/tools/{name}', ['name'], 'A paid tool at its wallet price'));
  app.post(
    '/x402/tools/:name',
    selling((x, body) => {
      const name = decodeURIComponent(x.path.slice('/x402/tools/'.length));
      const entry = resolveEntry(deps.catalog, `tools/${name}`, 'tool');
      if (entry.kind !== 'tool') throw new ApiError('not_found', `no tool ${name}: see GET /v1/tools`);
      return { entry, input: body };
    }, BODY_LIMITS.tools),
  );

  for (const family of X402_FAMILIES) {
    const prefix = `/${family}/`;
    app.openAPIRegistry.registerPath(docs(`${prefix}{model}`, ['model'], FAMILY_SUMMARY[family]));
    app.post(
      `${prefix}:model{.+}`,
      selling((x, body) => {
        const entry = resolveEntry(deps.catalog, decodeURIComponent(x.path.slice(prefix.length)));
        if (entry.kind === 'model' && entry.category === 'chat') {
          if (body.stream === true) {
            throw invalidInput([
              {
                field: 'stream',
                message:
                  'not offered on the wallet routes (the answer is one JSON object); POST /v1/chat/completions streams, and x402 clients can pay it too',
              },
            ]);
          }
          // The chat input names its model; the path already does.
          return { entry, input: { ...body, model: entry.id } };
        }
        return { entry, input: body };
      }),
    );
  }
}
