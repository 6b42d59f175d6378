/** The operator's HTTP API under /v1/admin: accounts, keys, credits and debits, ledger and usage. Needs ADMIN_TOKEN. */
import { createHash, timingSafeEqual } from 'node:crypto';
import { createRoute, type OpenAPIHono, z } from '@hono/zod-openapi';
import type { MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import type { Deps } from '../deps.js';
import { tooLarge } from '../http/body.js';
import { BODY_LIMITS } from '../http/body-limits.js';
import type { AppEnv } from '../http/env.js';
import { ApiError } from '../http/errors.js';
import { pickErrors } from '../http/openapi.js';
import { createAccount, getAccount, issueKey, listKeys, revokeKey } from '../ledger/accounts.js';
import { adjustBalance, type Balance, getBalance } from '../ledger/books.js';
import { InsufficientBalanceError, UnknownAccountError } from '../ledger/errors.js';
import { listAllUsage, listLedger, listUsage } from '../ledger/history.js';
import { formatUsd } from '../ledger/money.js';
import { channelView } from '../rails/channel/store.js';
import { rotateSecret } from '../rails/mpp/secrets.js';

const digest = (s: string) => createHash('sha256').update(s).digest();

/** Bearer ADMIN_TOKEN, compared in constant time (hashing first makes the lengths equal). */
function adminAuth(token: string): MiddlewareHandler<AppEnv> {
  const expected = digest(token);
  return async (c, next) => {
    const given = /^Bearer\s+(\S+)$/i.exec(c.req.header('authorization') ?? '')?.[1] ?? '';
    if (!timingSafeEqual(digest(given), expected)) {
      throw new ApiError('unauthorized', 'admin routes need Authorization: Bearer <ADMIN_TOKEN>', undefined, {
        'www-authenticate': 'Bearer realm="kasir-admin"',
      });
    }
    await next();
  };
}

const AccountId = z.object({ id: z.string().min(1).openapi({ example: 'acct_0123456789abcdef01234567' }) });
const microUsd = z.number().int().positive().max(Number.MAX_SAFE_INTEGER);
const json = <T extends z.ZodType>(schema: T) => ({ content: { 'application/json': { schema } } });
const ok = <T extends z.ZodType>(schema: T, description: string) => ({ description, ...json(schema) });
const security = [{ adminToken: [] }];

const BalanceSchema = z
  .object({
    account_id: z.string(),
    balance_micro_usd: z.number().int(),
    held_micro_usd: z.number().int(),
    available_micro_usd: z.number().int(),
    balance_usd: z.string(),
  })
  .openapi('AdminBalance');

const AdjustSchema = z.object({
  amount_micro_usd: microUsd.openapi({ example: 5_000_000 }),
  reason: z.string().min(1).max(500),
  idempotency_key: z.string().min(1).max(128).optional().openapi({
    description:
      'Makes a retried request apply once; defaults to the Idempotency-Key header, else a new key.',
  }),
});

const PageQuery = z.object({
  limit: z.coerce.number().int().min(1).max(500).default(100),
  before: z.coerce.number().int().positive().optional(),
});

const balanceBody = (b: Balance) => ({
  account_id: b.accountId,
  balance_micro_usd: b.balanceMicroUsd,
  held_micro_usd: b.heldMicroUsd,
  available_micro_usd: b.availableMicroUsd,
  balance_usd: formatUsd(b.balanceMicroUsd),
});

function known<T>(value: T | null | undefined, what: string): T {
  if (value === null || value === undefined) throw new ApiError('not_found', `no ${what}`);
  return value;
}

const route = <R extends Parameters<typeof createRoute>[0]>(r: R) =>
  createRoute({
    ...r,
    tags: ['admin'],
    security,
    responses: { ...r.responses, ...pickErrors(400, 401, 404) },
  });

export function mountAdminRoutes(app: OpenAPIHono<AppEnv>, deps: Deps, adminToken: string): void {
  const { db } = deps;
  app.openAPIRegistry.registerComponent('securitySchemes', 'adminToken', { type: 'http', scheme: 'bearer' });
  app.use('/v1/admin/*', adminAuth(adminToken));
  app.use(
    '/v1/admin/*',
    bodyLimit({
      maxSize: BODY_LIMITS.admin,
      onError: () => {
        throw tooLarge(BODY_LIMITS.admin);
      },
    }),
  );

  app.openapi(
    route({
      method: 'post',
      path: '/v1/admin/accounts',
      summary: 'Create a prepaid account',
      request: {
        body: {
          required: false,
          ...json(
            z.object({
              label: z.string().max(200).optional(),
              rate_limit_per_minute: z.number().int().min(1).optional(),
            }),
          ),
        },
      },
      responses: { 201: ok(z.object({ account_id: z.string(), label: z.string().nullable() }), 'Created') },
    }),
    async (c) => {
      const body = c.req.valid('json') ?? {};
      const account = await createAccount(db, {
        label: body.label,
        rateLimitPerMinute: body.rate_limit_per_minute,
      });
      return c.json({ account_id: account.id, label: account.label }, 201);
    },
  );

  app.openapi(
    route({
      method: 'get',
      path: '/v1/admin/accounts/{id}',
      summary: 'An account: balance, held amount and keys',
      request: { params: AccountId },
      responses: { 200: ok(z.unknown(), 'The account') },
    }),
    async (c) => {
      const account = known(await getAccount(db, c.req.valid('param').id), 'such account');
      await deps.reserves.flush();
      return c.json(
        {
          ...balanceBody(await getBalance(db, account.id)),
          label: account.label,
          rate_limit_per_minute: account.rate_limit_per_minute,
          created_at: account.created_at,
          keys: await listKeys(db, account.id),
        },
        200,
      );
    },
  );

  app.openapi(
    route({
      method: 'post',
      path: '/v1/admin/accounts/{id}/keys',
      summary: 'Issue an API key (the key is shown once)',
      request: {
        params: AccountId,
        body: {
          required: false,
          ...json(
            z.object({
              label: z.string().max(200).optional(),
              spend_cap_micro_usd: microUsd.optional(),
              rate_limit_per_minute: z.number().int().min(1).optional(),
            }),
          ),
        },
      },
      responses: {
        201: ok(
          z
            .object({ key_id: z.string(), key: z.string(), prefix: z.string(), account_id: z.string() })
            .passthrough(),
          'Issued; store the key now, it is not shown again',
        ),
      },
    }),
    async (c) => {
      const body = c.req.valid('json') ?? {};
      try {
        const issued = await issueKey(db, c.req.valid('param').id, {
          label: body.label,
          spendCapMicroUsd: body.spend_cap_micro_usd,
          rateLimitPerMinute: body.rate_limit_per_minute,
        });
        return c.json(issued, 201);
      } catch (err) {
        if (err instanceof UnknownAccountError) throw new ApiError('not_found', err.message);
        throw err;
      }
    },
  );

  app.openapi(
    route({
      method: 'delete',
      path: '/v1/admin/keys/{key_id}',
      summary: 'Revoke an API key',
      request: { params: z.object({ key_id: z.string().min(1) }) },
      responses: { 200: ok(z.object({ key_id: z.string(), revoked_at: z.string() }), 'Revoked') },
    }),
    async (c) => {
      const keyId = c.req.valid('param').key_id;
      const revoked = known(await revokeKey(db, keyId), 'such key');
      deps.keys.forget(keyId);
      return c.json({ key_id: revoked.id, revoked_at: revoked.revoked_at ?? '' }, 200);
    },
  );

  for (const kind of ['credit', 'debit'] as const) {
    app.openapi(
      route({
        method: 'post',
        path: `/v1/admin/accounts/{id}/${kind}`,
        summary:
          kind === 'credit'
            ? 'Add money to an account'
            : 'Take money from an account (never below what is held)',
        request: { params: AccountId, body: { required: true, ...json(AdjustSchema) } },
        responses: {
          200: ok(BalanceSchema.extend({ applied: z.boolean() }), 'The new balance'),
          ...pickErrors(409),
          422: ok(z.unknown(), 'A debit larger than the available balance'),
        },
      }),
      async (c) => {
        const body = c.req.valid('json');
        const accountId = c.req.valid('param').id;
        known(await getAccount(db, accountId), 'such account');
        const idempotencyKey = body.idempotency_key ?? c.req.header('idempotency-key') ?? c.get('requestId');
        // Money this instance leased in advance for calls is not spent: give it back so a debit can reach it.
        if (kind === 'debit') await deps.reserves.returnAccount(accountId);
        try {
          const result = await adjustBalance(db, {
            accountId,
            kind,
            amountMicroUsd: body.amount_micro_usd,
            reason: body.reason,
            idempotencyKey,
          });
          return c.json({ ...balanceBody(result.balance), applied: result.applied }, 200);
        } catch (err) {
          if (err instanceof InsufficientBalanceError) {
            throw new ApiError(
              'unprocessable',
              `cannot debit ${err.needed}: ${err.available} micro-USD available`,
              {
                available_micro_usd: err.available,
              },
            );
          }
          throw err;
        }
      },
    );
  }

  app.openapi(
    route({
      method: 'get',
      path: '/v1/admin/usage',
      summary: 'Usage records of every payer, newest first (wallet payments carry route, network and tx_id)',
      request: {
        query: PageQuery.extend({
          rail: z.string().max(32).optional(),
          payer: z.string().max(128).optional(),
        }),
      },
      responses: {
        200: ok(z.object({ items: z.array(z.unknown()), next_before: z.number().nullable() }), 'A page'),
      },
    }),
    async (c) => {
      const { rail, payer, ...page } = c.req.valid('query');
      await deps.reserves.flush();
      return c.json(await listAllUsage(db, { rail, payer }, page), 200);
    },
  );

  app.openapi(
    route({
      method: 'post',
      path: '/v1/admin/mpp/rotate-secret',
      summary:
        'Starts signing MPP challenges with a new secret; challenges signed with the previous one stay payable until they expire (secrets older than that are retired)',
      responses: { 200: ok(z.object({ secret_id: z.string() }), 'The new secret (its id only)') },
    }),
    async (c) => {
      if (!deps.mpp) throw new ApiError('not_configured', 'the MPP rail is off on this server');
      const id = await rotateSecret(db);
      await deps.mpp.reload();
      return c.json({ secret_id: id }, 200);
    },
  );

  app.openapi(
    route({
      method: 'get',
      path: '/v1/admin/channels',
      summary: 'Payment channels: open ones first (deposit, highest voucher, spend, units), then closed ones',
      request: { query: z.object({ open: z.enum(['true', 'false']).optional() }) },
      responses: { 200: ok(z.object({ items: z.array(z.unknown()) }), 'The channels') },
    }),
    async (c) => {
      const onlyOpen = c.req.valid('query').open === 'true';
      let query = db.kysely
        .selectFrom('payment_channels')
        .selectAll()
        .orderBy('finalized_at', 'desc')
        .orderBy('updated_at', 'desc');
      if (onlyOpen) query = query.where('finalized_at', 'is', null);
      const rows = await query.limit(500).execute();
      return c.json({ items: rows.map(channelView) }, 200);
    },
  );

  for (const view of ['ledger', 'usage'] as const) {
    app.openapi(
      route({
        method: 'get',
        path: `/v1/admin/accounts/{id}/${view}`,
        summary:
          view === 'ledger' ? 'Ledger entries, newest first' : 'Usage records of paid calls, newest first',
        request: { params: AccountId, query: PageQuery },
        responses: {
          200: ok(z.object({ items: z.array(z.unknown()), next_before: z.number().nullable() }), 'A page'),
        },
      }),
      async (c) => {
        const accountId = c.req.valid('param').id;
        known(await getAccount(db, accountId), 'such account');
        const page = c.req.valid('query');
        // Charges of calls this instance served are written just after their responses: include them.
        await deps.reserves.flush();
        return c.json(await (view === 'ledger' ? listLedger : listUsage)(db, accountId, page), 200);
      },
    );
  }
}
