/**
 * The OpenAPI description of a payment-channel variant of an inference route (/v1/channels/{id}/infer,
 * /v1/channels/{id}/chat/completions): the route's own body and answers, the channel in the path, and the one rail
 * it takes. The handler is the route's own (routes/chat.ts, routes/models.ts).
 */
import { type RouteConfig, z } from '@hono/zod-openapi';

export function channelVariant(route: RouteConfig): RouteConfig {
  return {
    ...route,
    path: `/v1/channels/{id}${route.path.replace(/^\/v1/, '')}`,
    tags: ['channels'],
    summary: `${route.summary} — paid from payment channel {id}`,
    description:
      `The same call as ${route.path}, paid only by a \`Payment-Voucher\` of channel {id} (a voucher of another ` +
      'channel, or any other credential, is answered with a 402 naming the channel rail).\n\n' +
      (route.description ?? ''),
    request: { ...route.request, params: z.object({ id: z.string().regex(/^0x[0-9a-fA-F]{64}$/) }) },
  };
}
