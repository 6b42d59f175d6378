/**
 * The dashboard (/dashboard): sign in with a key, balance, keys (create, name, cap, rate limit, revoke), usage
 * (table, paging, CSV, charts). Every response carries the CSP; every form is checked for origin and CSRF token.
 * Top-up pages are in topup-routes.tsx, wallet sign-in in siwe-routes.ts.
 */
import type { OpenAPIHono } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import type { Deps } from '../deps.js';
import { tooLarge } from '../http/body.js';
import type { AppEnv } from '../http/env.js';
import { ApiError } from '../http/errors.js';
import { issueKey, listKeys } from '../ledger/accounts.js';
import { getBalance } from '../ledger/books.js';
import { formatUsd } from '../ledger/money.js';
import type { PaymentGateway } from '../topup/gateway.js';
import { mountDashboardAssets } from './assets.js';
import { cookiePolicy, parseIntField, parseUsdField, readForm, type Visit, visit } from './context.js';
import { describeDashboard } from './openapi-paths.js';
import { revokeOwnKey, updateOwnKey } from './own-keys.js';
import { sameOrigin, securityHeaders } from './security.js';
import { endSession, startSession } from './session.js';
import { mountSiwe } from './siwe-routes.js';
import { mountTopupPages } from './topup-routes.js';
import { spendSeries, usageCsv, usagePage } from './usage-data.js';
import { KeysPage, OverviewPage, UsagePage } from './views/account.js';
import { SignInPage } from './views/topup.js';

const FORM_LIMIT = 16 * 1024;
const CSV_MAX_ROWS = 10_000;

/** The signed-in account of this visit, or a redirect to the sign-in page. */
function accountOf(v: Visit): string | null {
  return v.viewer && 'accountId' in v.viewer ? v.viewer.accountId : null;
}

export function mountDashboard(app: OpenAPIHono<AppEnv>, deps: Deps, gateway: PaymentGateway | null): void {
  const { db } = deps;
  const policy = cookiePolicy(deps);
  const idrPerUsd = deps.config.dashboard.topup.idrPerUsd;
  app.use('/dashboard', securityHeaders());
  app.use('/dashboard/*', securityHeaders());
  app.use('/dashboard/*', sameOrigin(deps.config.publicBaseUrl));
  app.use(
    '/dashboard/*',
    bodyLimit({
      maxSize: FORM_LIMIT,
      onError: () => {
        throw tooLarge(FORM_LIMIT);
      },
    }),
  );
  describeDashboard(app);
  mountDashboardAssets(app);

  const signIn = async (c: Context<AppEnv>, v: Visit, error?: string, status: 200 | 401 = 200) =>
    c.html(<SignInPage page={v.page} error={error} wallet={true} />, status);

  app.get('/dashboard', async (c) => {
    const v = await visit(c, deps);
    if (v.viewer && 'wallet' in v.viewer) return c.redirect('/dashboard/usage', 303);
    const accountId = accountOf(v);
    if (!accountId) return signIn(c, v);
    await deps.reserves.flush();
    const balance = deps.reserves.view(await getBalance(db, accountId));
    const keys = await listKeys(db, accountId);
    return c.html(
      <OverviewPage
        page={v.page}
        balance={balance}
        idrPerUsd={idrPerUsd}
        keyCount={keys.filter((k) => !k.revoked_at).length}
      />,
    );
  });

  app.post('/dashboard/login', async (c) => {
    const v = await visit(c, deps);
    const form = await readForm(c, v.session);
    const key = form.key ? await deps.keys.resolve(form.key) : null;
    if (!key) return signIn(c, v, v.page.t.badKey, 401);
    await startSession(c, db, policy, { accountId: key.accountId });
    return c.redirect('/dashboard', 303);
  });

  app.post('/dashboard/logout', async (c) => {
    const v = await visit(c, deps);
    await readForm(c, v.session);
    await endSession(c, db, policy);
    return c.redirect('/dashboard', 303);
  });

  const keysPage = async (c: Context<AppEnv>, v: Visit, accountId: string, extra = {}) =>
    c.html(<KeysPage page={v.page} keys={await listKeys(db, accountId)} {...extra} />);

  app.get('/dashboard/keys', async (c) => {
    const v = await visit(c, deps);
    const accountId = accountOf(v);
    if (!accountId) return c.redirect('/dashboard', 303);
    return keysPage(c, v, accountId);
  });

  const keySettings = (form: Record<string, string>) => ({
    label: form.label ? form.label.slice(0, 200) : null,
    spendCapMicroUsd: parseUsdField('spend_cap_usd', form.spend_cap_usd),
    rateLimitPerMinute: parseIntField('rate_limit_per_minute', form.rate_limit_per_minute, 1, 1_000_000),
  });

  app.post('/dashboard/keys', async (c) => {
    const v = await visit(c, deps);
    const accountId = accountOf(v);
    if (!accountId) throw new ApiError('unauthorized', 'sign in first');
    const form = await readForm(c, v.session);
    const issued = await issueKey(db, accountId, keySettings(form));
    // Rendered in this response, never redirected to: the key exists nowhere else to be shown again.
    return keysPage(c, v, accountId, { newKey: issued.key });
  });

  app.post('/dashboard/keys/:id', async (c) => {
    const v = await visit(c, deps);
    const accountId = accountOf(v);
    if (!accountId) throw new ApiError('unauthorized', 'sign in first');
    const form = await readForm(c, v.session);
    const keyId = c.req.param('id');
    if (!(await updateOwnKey(db, accountId, keyId, keySettings(form))))
      throw new ApiError('not_found', 'no such key');
    deps.keys.forget(keyId);
    return keysPage(c, v, accountId, { notice: v.page.t.saved });
  });

  app.post('/dashboard/keys/:id/revoke', async (c) => {
    const v = await visit(c, deps);
    const accountId = accountOf(v);
    if (!accountId) throw new ApiError('unauthorized', 'sign in first');
    await readForm(c, v.session);
    const keyId = c.req.param('id');
    if (!(await revokeOwnKey(db, accountId, keyId))) throw new ApiError('not_found', 'no such key');
    deps.keys.forget(keyId);
    return keysPage(c, v, accountId, { notice: v.page.t.keyRevoked });
  });

  app.get('/dashboard/usage', async (c) => {
    const v = await visit(c, deps);
    if (!v.viewer) return c.redirect('/dashboard', 303);
    const before = c.req.query('before');
    const beforeId = before && /^\d{1,15}$/.test(before) ? Number(before) : undefined;
    await deps.reserves.flush();
    const page = await usagePage(db, deps.catalog, v.viewer, { limit: 50, before: beforeId });
    const series = await spendSeries(db, v.viewer);
    return c.html(
      <UsagePage
        page={v.page}
        lines={page.lines}
        nextBefore={page.nextBefore}
        paged={beforeId !== undefined}
        series={series}
      />,
    );
  });

  app.get('/dashboard/usage.csv', async (c) => {
    const v = await visit(c, deps);
    if (!v.viewer) throw new ApiError('unauthorized', 'sign in first');
    await deps.reserves.flush();
    const { lines } = await usagePage(db, deps.catalog, v.viewer, { limit: CSV_MAX_ROWS });
    return c.body(usageCsv(lines, formatUsd), 200, {
      'content-type': 'text/csv; charset=utf-8',
      'content-disposition': 'attachment; filename="kasir-usage.csv"',
    });
  });

  mountTopupPages(app, deps, gateway);
  mountSiwe(app, deps);
}
