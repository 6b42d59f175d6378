/** POST /v1/chat/completions: a drop-in for the common chat wire format, sold through the checkout. */
import { createRoute, z } from '@hono/zod-openapi';
import { resolveEntry } from '../catalog/resolve.js';
import { type CheckoutDeps, sell } from '../checkout/pipeline.js';
import type { Deps } from '../deps.js';
import { parseJsonBody } from '../http/body.js';
import { BODY_LIMITS } from '../http/body-limits.js';
import { invalidInput } from '../http/errors.js';
import { type Exchange, exchangeOf } from '../http/exchange.js';
import type { LaneApp } from '../http/lanes.js';
import { pickErrors } from '../http/openapi.js';
import { CHANNEL_ROUTES } from '../rails/channel/paths.js';
import { channelVariant } from './channel-variants.js';

const Message = z
  .object({
    role: z.enum(['system', 'user', 'assistant', 'tool']),
    content: z.union([z.string(), z.array(z.record(z.string(), z.unknown())), z.null()]).optional(),
    tool_calls: z.array(z.record(z.string(), z.unknown())).optional(),
    tool_call_id: z.string().optional(),
  })
  .passthrough();

const ChatRequest = z
  .object({
    model: z
      .string()
      .openapi({ example: 'openai/gpt-4.1-mini', description: 'A chat model id from GET /v1/models' }),
    messages: z.array(Message).min(1),
    max_tokens: z
      .number()
      .int()
      .min(1)
      .optional()
      .openapi({ description: 'Default 1024; billed at this ceiling' }),
    temperature: z.number().optional(),
    top_p: z.number().optional(),
    stop: z.union([z.string(), z.array(z.string())]).optional(),
    n: z.number().int().min(1).max(10).optional(),
    seed: z.number().int().optional(),
    response_format: z.record(z.string(), z.unknown()).optional(),
    tools: z.array(z.record(z.string(), z.unknown())).optional(),
    tool_choice: z
      .union([z.enum(['auto', 'none', 'required']), z.record(z.string(), z.unknown())])
      .optional(),
    reasoning_effort: z.string().optional(),
    stream: z.boolean().optional(),
  })
  .passthrough()
  .openapi('ChatCompletionRequest');

const ChatResponse = z
  .object({
    id: z.string(),
    object: z.literal('chat.completion'),
    created: z.number().int(),
    model: z.string(),
    choices: z.array(z.unknown()),
    usage: z.object({
      prompt_tokens: z.number().int(),
      completion_tokens: z.number().int(),
      total_tokens: z.number().int(),
    }),
    costMicroUsd: z.number().int(),
    receipt: z.record(z.string(), z.unknown()),
  })
  .passthrough()
  .openapi('ChatCompletion');

const chatRoute = createRoute({
  method: 'post',
  path: '/v1/chat/completions',
  tags: ['inference'],
  summary: 'Chat completions (common chat wire format), billed to the token ceiling',
  description:
    "The quote is (estimated input tokens + max_tokens) at the model's per-1M rates; the charge equals the quote, " +
    'and only on success. `stream: true` answers server-sent events in chat-chunk format, ending with a chunk that ' +
    'carries `usage`, `costMicroUsd` and `receipt`, then `data: [DONE]`. If the upstream fails mid-stream an ' +
    '`event: error` frame is sent and nothing is charged; if the caller disconnects mid-stream the upstream is ' +
    'stopped and the quote is charged. On a payment channel a stream is metered instead: it is charged the output ' +
    'delivered, and asks for a higher voucher with `event: payment-need-voucher` as it goes (see README, Payment ' +
    'channels). Unknown fields pass through to upstreams that take them.',
  request: { body: { required: true, content: { 'application/json': { schema: ChatRequest } } } },
  responses: {
    200: {
      description: 'The completion, or an event stream',
      content: { 'application/json': { schema: ChatResponse }, 'text/event-stream': { schema: z.string() } },
    },
    ...pickErrors(400, 401, 402, 404, 409, 413, 429, 502, 503, 504),
  },
});

export function mountChatRoutes(app: LaneApp, deps: Deps, checkoutDeps: CheckoutDeps): void {
  app.openAPIRegistry.registerPath(chatRoute);
  const handle = (x: Exchange) =>
    sell(x, checkoutDeps, async () => {
      const raw = await x.readBody(BODY_LIMITS.chat);
      const body = parseJsonBody(raw);
      const entry = resolveEntry(deps.catalog, body.model);
      if (entry.kind !== 'model' || entry.category !== 'chat') {
        const where = entry.kind === 'model' ? `; call ${entry.route}` : '';
        throw invalidInput([{ field: 'model', message: `${entry.id} is not a chat model${where}` }]);
      }
      return { offer: deps.offers.offerFor(entry), input: body, rawBody: raw };
    });
  // A lane: the most called paid route is answered by the Node server itself (see http/lanes.ts).
  app.postLane('/v1/chat/completions', handle);
  if (deps.channels) {
    app.openAPIRegistry.registerPath(channelVariant(chatRoute));
    app.post(`${CHANNEL_ROUTES}:id/chat/completions`, (c) => handle(exchangeOf(c)));
  }
}
