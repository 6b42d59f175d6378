/**
 * Payment channels: register one opened on chain (POST /v1/channels), read it (GET /v1/channels/{id}), close and
 * settle it (POST /v1/channels/{id}/close); the operator lists them at GET /v1/admin/channels (routes/admin.ts).
 * Paid calls on a channel are the ordinary /v1/* routes with an MPP `tempo/session` credential (mppx's session
 * client opens, pays, tops up and closes through them: rails/channel/management.ts) or a `Payment-Voucher` header
 * (rails/channel); a metered stream that asks for more is sent a higher voucher either way, or at
 * POST /v1/channels/{id}/vouchers.
 */
import { createRoute, type OpenAPIHono, z } from '@hono/zod-openapi';
import type { Deps } from '../deps.js';
import type { AppEnv } from '../http/env.js';
import { ApiError } from '../http/errors.js';
import { pickErrors } from '../http/openapi.js';
import type { ChannelDescriptor } from '../rails/channel/backend.js';
import { Bytes32, Descriptor } from '../rails/channel/descriptor.js';
import {
  acceptVoucher,
  channelView,
  closeChannel,
  readChannel,
  registerChannel,
} from '../rails/channel/store.js';

const ChannelId = z.object({ id: Bytes32 });
const VoucherBody = z.object({
  cumulative: z
    .string()
    .regex(/^\d{1,30}$/, 'must be the cumulative amount in base units, as a decimal string')
    .openapi({ example: '250000' }),
  signature: z.string().regex(/^0x[0-9a-fA-F]{130}$/, 'must be the 65-byte EIP-712 voucher signature'),
});
const View = z.record(z.string(), z.unknown()).openapi('PaymentChannel');
const ok = (description: string) => ({ description, content: { 'application/json': { schema: View } } });

export function mountChannelRoutes(app: OpenAPIHono<AppEnv>, deps: Deps): void {
  const channels = deps.channels;
  const on = () => {
    if (!channels) {
      throw new ApiError(
        'not_configured',
        'payment channels are off on this server (the operator turns them on with MPP_CHANNEL_OPERATOR_KEY, beside MPP_TEMPO_RECIPIENT or KASIR_PAY_TO)',
        { settings: ['MPP_CHANNEL_OPERATOR_KEY', 'MPP_TEMPO_RECIPIENT', 'KASIR_PAY_TO'] },
      );
    }
    return channels;
  };
  app.openapi(
    createRoute({
      method: 'post',
      path: '/v1/channels',
      tags: ['channels'],
      summary: 'Register a payment channel opened on Tempo to this server (again after a top-up)',
      request: {
        body: {
          required: true,
          content: { 'application/json': { schema: z.object({ descriptor: Descriptor }) } },
        },
      },
      responses: { 200: ok('The channel as kasir holds it'), ...pickErrors(400, 503) },
    }),
    async (c) => {
      const ch = on();
      const { descriptor } = c.req.valid('json');
      const row = await registerChannel(deps.db, ch.backend, descriptor as ChannelDescriptor, {
        payee: ch.payee,
        token: ch.currency,
      });
      return c.json(channelView(row), 200);
    },
  );
  app.openapi(
    createRoute({
      method: 'get',
      path: '/v1/channels/{id}',
      tags: ['channels'],
      summary: "A channel's deposit, highest accepted voucher, spend and state",
      request: { params: ChannelId },
      responses: { 200: ok('The channel'), ...pickErrors(404, 503) },
    }),
    async (c) => {
      on();
      const row = await readChannel(deps.db, c.req.valid('param').id);
      if (!row) throw new ApiError('not_found', 'no such channel here');
      return c.json(channelView(row), 200);
    },
  );
  app.openapi(
    createRoute({
      method: 'post',
      path: '/v1/channels/{id}/vouchers',
      tags: ['channels'],
      summary:
        'Send a higher voucher on its own: what a metered stream asks for with `payment-need-voucher` (it resumes)',
      request: {
        params: ChannelId,
        body: { required: true, content: { 'application/json': { schema: VoucherBody } } },
      },
      responses: { 200: ok('The channel with the voucher accepted'), ...pickErrors(400, 402, 503) },
    }),
    async (c) => {
      const ch = on();
      const { id } = c.req.valid('param');
      const { cumulative, signature } = c.req.valid('json');
      const row = await acceptVoucher(deps.db, ch.backend, {
        channelId: id as `0x${string}`,
        cumulative: BigInt(cumulative),
        signature: signature as `0x${string}`,
      });
      ch.bell.ring(row.id);
      return c.json(channelView(row), 200);
    },
  );
  app.openapi(
    createRoute({
      method: 'post',
      path: '/v1/channels/{id}/close',
      tags: ['channels'],
      summary:
        'Stop taking vouchers and close on chain: what was spent goes to the payee, the rest back to the payer',
      request: { params: ChannelId },
      responses: { 200: ok('The closed channel'), ...pickErrors(404, 409, 502, 503) },
    }),
    async (c) => {
      const ch = on();
      const row = await closeChannel(deps.db, ch.backend, c.req.valid('param').id);
      return c.json(channelView(row), 200);
    },
  );
}
