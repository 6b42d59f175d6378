// The dashboard over app.request: sessions and their cookies, CSP, CSRF refusals, keys, usage paging and CSV,
// and that one account's session never reaches another account's keys or usage.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CSP } from '../../src/dashboard/security.js';
import { issueKey } from '../../src/ledger/accounts.js';
import { nowIso } from '../../src/ledger/ids.js';
import type { Db } from '../../src/store/db.js';
import { DB_TARGETS, startKasir, type TestKasir } from '../support/app.js';
import { DashboardClient, shownKey } from '../support/dashboard-client.js';
import { fundedAccount } from '../support/ledger.js';

async function addUsage(
  db: Db,
  accountId: string,
  n: number,
  offerId = 'gpt-4o-mini',
  payer: string | null = null,
) {
  for (let i = 0; i < n; i++) {
    await db.kysely
      .insertInto('usage_records')
      .values({
        created_at: nowIso(),
        request_id: `req-${accountId}-${offerId}-${i}`,
        rail: payer ? 'x402' : 'prepaid',
        account_id: payer ? null : accountId,
        key_id: null,
        payer,
        offer_id: offerId,
        quote_micro_usd: 1000 + i,
        charged_micro_usd: 1000 + i,
        status: 'charged',
        http_status: 200,
        latency_ms: 5,
        error_code: null,
      })
      .execute();
  }
}

describe.each(DB_TARGETS)('dashboard on %s', (target) => {
  let kasir: TestKasir;
  beforeAll(async () => {
    kasir = await startKasir(target, { RATE_LIMIT_PER_MINUTE: '0', TOPUP_IDR_PER_USD: '16000' });
  });
  afterAll(() => kasir.close());

  const signedIn = async (microUsd = 5_000_000) => {
    const accountId = await fundedAccount(kasir.deps.db, microUsd);
    const { key } = await issueKey(kasir.deps.db, accountId, { label: 'first' });
    const browser = new DashboardClient(kasir);
    await browser.get('/dashboard');
    const res = await browser.post('/dashboard/login', { key });
    expect(res.status).toBe(303);
    // The browser follows the redirect: the signed-in page carries the session's own CSRF token.
    await browser.get('/dashboard');
    return { browser, accountId, key, res };
  };

  it('sends the strict CSP and a CSRF cookie on the sign-in page', async () => {
    const browser = new DashboardClient(kasir);
    const res = await browser.get('/dashboard');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-security-policy')).toBe(CSP);
    expect(CSP).toContain("script-src 'self'");
    expect(CSP).not.toContain('unsafe-inline');
    expect(res.headers.get('x-frame-options')).toBe('DENY');
    const csrf = res.setCookies.find((c) => c.startsWith('kasir_csrf='));
    expect(csrf).toMatch(/HttpOnly/);
    expect(csrf).toMatch(/SameSite=Strict/);
    expect(csrf).toMatch(/Path=\/dashboard/);
    expect(browser.csrf.length).toBeGreaterThanOrEqual(32);
    for (const path of ['/dashboard/topup', '/dashboard/assets/dashboard.js']) {
      expect((await browser.get(path)).headers.get('content-security-policy'), path).toBe(CSP);
    }
  });

  it('signs in with a key: an HttpOnly SameSite session cookie whose id the database keeps only hashed', async () => {
    const { res, browser, accountId } = await signedIn();
    const cookie = res.setCookies.find((c) => c.startsWith('kasir_session='));
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Strict/);
    expect(cookie).toMatch(/Max-Age=\d+/);
    expect(cookie).not.toMatch(/Secure/);
    const id = browser.cookies.get('kasir_session') ?? '';
    const rows = await kasir.deps.db.kysely.selectFrom('dashboard_sessions').selectAll().execute();
    const mine = rows.find((r) => r.account_id === accountId);
    expect(mine).toBeDefined();
    expect(JSON.stringify(rows)).not.toContain(id);
    const page = await browser.get('/dashboard');
    expect(page.text).toContain('$5.000000');
    expect(page.text).toContain('Rp 80.000');
  });

  it('offers no Top up link when top-ups are off (no payment gateway), signed in or not', async () => {
    const visitor = new DashboardClient(kasir);
    expect((await visitor.get('/dashboard')).text).not.toContain('href="/dashboard/topup"');
    const { browser } = await signedIn();
    const overview = await browser.get('/dashboard');
    expect(overview.text).toContain('id="balance"');
    expect(overview.text).not.toContain('href="/dashboard/topup"');
  });

  it('refuses a wrong key with 401 and starts no session', async () => {
    const browser = new DashboardClient(kasir);
    await browser.get('/dashboard');
    const res = await browser.post('/dashboard/login', { key: `ksr_${'x'.repeat(43)}` });
    expect(res.status).toBe(401);
    expect(res.setCookies.some((c) => c.startsWith('kasir_session='))).toBe(false);
  });

  it('refuses forms without the CSRF token, with another token, or from another origin', async () => {
    const { browser, accountId } = await signedIn();
    const count = async () =>
      (
        await kasir.deps.db.kysely
          .selectFrom('api_keys')
          .select('id')
          .where('account_id', '=', accountId)
          .execute()
      ).length;
    const before = await count();
    expect((await browser.post('/dashboard/keys', { _csrf: '' })).status).toBe(403);
    expect((await browser.post('/dashboard/keys', { _csrf: 'x'.repeat(43) })).status).toBe(403);
    expect((await browser.post('/dashboard/keys', {}, { origin: 'https://evil.example' })).status).toBe(403);
    expect((await browser.post('/dashboard/keys', {}, { 'sec-fetch-site': 'cross-site' })).status).toBe(403);
    // A signed-out browser's token is not the session's.
    const other = new DashboardClient(kasir);
    await other.get('/dashboard');
    expect((await browser.post('/dashboard/keys', { _csrf: other.csrf })).status).toBe(403);
    expect(await count()).toBe(before);
    expect((await browser.post('/dashboard/keys', { label: 'ok' })).status).toBe(200);
    expect(await count()).toBe(before + 1);
  });

  it('creates a key shown once, names it, caps it, limits it, and revokes it', async () => {
    const { browser } = await signedIn();
    const created = await browser.post('/dashboard/keys', {
      label: 'ci bot',
      spend_cap_usd: '2.5',
      rate_limit_per_minute: '30',
    });
    const key = shownKey(created.text);
    expect(key).toBeDefined();
    const row = await kasir.deps.db.kysely
      .selectFrom('api_keys')
      .selectAll()
      .where('label', '=', 'ci bot')
      .executeTakeFirstOrThrow();
    expect(row.spend_cap_micro_usd).toBe(2_500_000);
    expect(row.rate_limit_per_minute).toBe(30);
    const listed = await browser.get('/dashboard/keys');
    expect(listed.text).not.toContain(key);
    expect(listed.text).toContain(row.prefix);

    const bad = await browser.post(`/dashboard/keys/${row.id}`, { label: 'x', spend_cap_usd: '1.2345678' });
    expect(bad.status).toBe(400);
    expect(bad.text).toContain('spend_cap_usd');
    expect(
      (await browser.post(`/dashboard/keys/${row.id}`, { label: 'renamed', spend_cap_usd: '' })).status,
    ).toBe(200);
    const renamed = await kasir.deps.db.kysely
      .selectFrom('api_keys')
      .selectAll()
      .where('id', '=', row.id)
      .executeTakeFirstOrThrow();
    expect(renamed).toMatchObject({
      label: 'renamed',
      spend_cap_micro_usd: null,
      rate_limit_per_minute: null,
    });

    const balance = () =>
      kasir.app.request('/v1/keys/balance', { headers: { authorization: `Bearer ${key}` } });
    expect((await balance()).status).toBe(200);
    expect((await browser.post(`/dashboard/keys/${row.id}/revoke`)).status).toBe(200);
    expect((await balance()).status).toBe(401);
  });

  it("never lets one account's session see or change another account's keys or usage", async () => {
    const a = await signedIn();
    const b = await signedIn();
    await addUsage(kasir.deps.db, b.accountId, 2, 'only-b-model');
    const bKey = await kasir.deps.db.kysely
      .selectFrom('api_keys')
      .selectAll()
      .where('account_id', '=', b.accountId)
      .executeTakeFirstOrThrow();
    expect((await a.browser.post(`/dashboard/keys/${bKey.id}/revoke`)).status).toBe(404);
    expect((await a.browser.post(`/dashboard/keys/${bKey.id}`, { label: 'mine now' })).status).toBe(404);
    const still = await kasir.app.request('/v1/keys/balance', {
      headers: { authorization: `Bearer ${b.key}` },
    });
    expect(still.status).toBe(200);
    expect((await a.browser.get('/dashboard/keys')).text).not.toContain(bKey.prefix);
    expect((await a.browser.get('/dashboard/usage')).text).not.toContain('only-b-model');
    expect((await a.browser.get('/dashboard/usage.csv')).text).not.toContain('only-b-model');
    expect((await b.browser.get('/dashboard/usage')).text).toContain('only-b-model');
  });

  it('pages usage 50 at a time, exports all of it as CSV, and feeds the charts', async () => {
    const { browser, accountId } = await signedIn();
    await addUsage(kasir.deps.db, accountId, 60, 'gpt-4o-mini');
    const first = await browser.get('/dashboard/usage');
    expect(first.status).toBe(200);
    expect(first.text.match(/<tr>/g)?.length).toBe(51);
    const next = /href="(\/dashboard\/usage\?before=\d+)"/.exec(first.text)?.[1];
    expect(next).toBeDefined();
    const second = await browser.get(next ?? '');
    expect(second.text.match(/<tr>/g)?.length).toBe(11);
    expect(second.text).not.toMatch(/before=\d+"/);
    const data = JSON.parse(/id="chart-data">([^<]*)<\/script>/.exec(first.text)?.[1] ?? '{}');
    const total = (60 * 1000 + (59 * 60) / 2) / 1e6;
    expect(data.perModel).toEqual([{ label: 'gpt-4o-mini', usd: total.toFixed(6) }]);
    expect(data.perDay).toHaveLength(1);

    const csv = await browser.get('/dashboard/usage.csv');
    expect(csv.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(csv.headers.get('content-disposition')).toContain('attachment');
    const lines = csv.text.trimEnd().split('\r\n');
    expect(lines[0]).toBe('time,route,model,cost_usd,cost_micro_usd,status,http_status,rail');
    expect(lines).toHaveLength(61);
    expect(lines[1]).toMatch(/,\/v1\/chat\/completions,gpt-4o-mini,0\.001059,1059,charged,200,prepaid$/);
  });

  it('keeps the signed-out browser out of account pages and its session ends on sign-out', async () => {
    const anon = new DashboardClient(kasir);
    expect((await anon.get('/dashboard/keys')).status).toBe(303);
    expect((await anon.get('/dashboard/usage.csv')).status).toBe(401);
    const { browser } = await signedIn();
    expect((await browser.post('/dashboard/logout')).status).toBe(303);
    expect(browser.cookies.has('kasir_session')).toBe(false);
    expect((await browser.get('/dashboard/keys')).status).toBe(303);
  });
});

describe('dashboard cookies behind https', () => {
  let kasir: TestKasir;
  beforeAll(async () => {
    kasir = await startKasir('sqlite', {
      PUBLIC_BASE_URL: 'https://kasir.example',
      RATE_LIMIT_PER_MINUTE: '0',
    });
  });
  afterAll(() => kasir.close());

  it('marks the session cookie Secure', async () => {
    const accountId = await fundedAccount(kasir.deps.db, 1);
    const { key } = await issueKey(kasir.deps.db, accountId);
    const browser = new DashboardClient(kasir, 'https://kasir.example');
    await browser.get('/dashboard');
    const res = await browser.post('/dashboard/login', { key });
    expect(res.status).toBe(303);
    expect(res.setCookies.find((c) => c.startsWith('kasir_session='))).toMatch(/Secure/);
  });
});
