/** GET /v1/keys/balance: the balance of the account behind a prepaid API key. */
import { createRoute, type OpenAPIHono, z } from '@hono/zod-openapi';
import type { Deps } from '../deps.js';
import type { AppEnv } from '../http/env.js';
import { ApiError } from '../http/errors.js';
import { pickErrors } from '../http/openapi.js';
import { getBalance } from '../ledger/books.js';
import { formatUsd } from '../ledger/money.js';
import { bearerToken, prepaidHeaders } from '../rails/prepaid.js';

const BalanceSchema = z
  .object({
    account_id: z.string(),
    balance_micro_usd: z.number().int(),
    balance_usd: z.string().openapi({ example: '12.500000' }),
    held_micro_usd: z.number().int().openapi({ description: 'Reserved by calls still running' }),
    available_micro_usd: z.number().int(),
  })
  .openapi('Balance');

const balanceRoute = createRoute({
  method: 'get',
  path: '/v1/keys/balance',
  tags: ['account'],
  summary: 'Balance of the prepaid account behind the key',
  description:
    'The account behind the key. Wallet payers hold no balance here: their payments move on-chain only for calls ' +
    'that succeeded.',
  security: [{ apiKey: [] }],
  responses: {
    200: { description: 'The balance', content: { 'application/json': { schema: BalanceSchema } } },
    ...pickErrors(401, 429),
  },
});

export function mountKeyRoutes(app: OpenAPIHono<AppEnv>, deps: Deps): void {
  app.openAPIRegistry.registerComponent('securitySchemes', 'apiKey', { type: 'http', scheme: 'bearer' });
  app.openapi(balanceRoute, async (c) => {
    const token = bearerToken(c.req.header('authorization'));
    const key = token ? await deps.keys.resolve(token) : null;
    if (!key)
      throw new ApiError('unauthorized', 'unknown or revoked API key; send Authorization: Bearer <key>');
    await deps.reserves.flush();
    const stored = await getBalance(deps.db, key.accountId);
    const b = deps.reserves.view(stored);
    return c.json(
      {
        account_id: b.accountId,
        balance_micro_usd: b.balanceMicroUsd,
        balance_usd: formatUsd(b.balanceMicroUsd),
        held_micro_usd: b.heldMicroUsd,
        available_micro_usd: b.availableMicroUsd,
      },
      200,
      prepaidHeaders(0, b.balanceMicroUsd),
    );
  });
}
