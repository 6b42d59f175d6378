// tools/stock-filings and tools/stock-fundamentals: SEC EDGAR filings and facts, refusals, and the tools
// without SEC_USER_AGENT or the ticker list.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeJsonUpstream } from '../../test/fakes/json-upstream.js';
import { startFakeSecEdgar } from '../../test/fakes/sec-edgar.js';
import { DB_TARGETS } from '../../test/support/app.js';
import { startToolKit, type ToolKit } from '../../test/support/tool-kit.js';

describe.each(DB_TARGETS)('tools/stock-filings and tools/stock-fundamentals on %s', (db) => {
  let sec: FakeJsonUpstream;
  let kit: ToolKit;
  beforeAll(async () => {
    sec = await startFakeSecEdgar();
    kit = await startToolKit(db, {
      SEC_USER_AGENT: 'Kasir Test ops@example.com',
      SEC_DATA_BASE_URL: sec.url,
      SEC_WWW_BASE_URL: sec.url,
    });
  });
  afterAll(async () => {
    await kit.stop();
    await sec.close();
  });

  it('lists filings newest first with links to their documents, sending the contact; cached', async () => {
    const { body, res } = await kit.paid('stock-filings', { ticker: 'aapl', limit: 3 });
    expect(res.headers.get('x-cache')).toBe('miss');
    expect(sec.requests.at(-1)?.headers['user-agent']).toBe('Kasir Test ops@example.com');
    expect(body.company).toEqual({ name: 'Apple Inc.', ticker: 'AAPL', cik: '0000320193', sic: '3571' });
    expect(body.filings).toEqual([
      {
        form: '10-K',
        filed: '2025-10-31',
        link: `${sec.url}/Archives/edgar/data/320193/000032019325000079/aapl-20250927.htm`,
      },
      {
        form: '4',
        filed: '2025-10-20',
        link: `${sec.url}/Archives/edgar/data/320193/000114036125040123/xslF345X05/wk-form4_1760999999.xml`,
      },
      {
        form: '10-Q',
        filed: '2025-08-01',
        link: `${sec.url}/Archives/edgar/data/320193/000032019325000073/aapl-20250628.htm`,
      },
    ]);
    const seen = sec.requests.length;
    expect((await kit.paid('stock-filings', { ticker: 'aapl', limit: 3 })).res.headers.get('x-cache')).toBe(
      'hit',
    );
    expect(sec.requests.length).toBe(seen);
  });

  it('filters by form; an empty list for a valid form is an answer', async () => {
    const { body } = await kit.paid('stock-filings', { ticker: 'AAPL', form: '10-k' });
    expect((body.filings as Array<{ filed: string }>).map((f) => f.filed)).toEqual([
      '2025-10-31',
      '2024-11-01',
    ]);
    const none = await kit.paid('stock-filings', { ticker: 'AAPL', form: 'S-1' });
    expect(none.body.filings).toEqual([]);
  });

  it('answers the headline facts newest first, and one concept’s history without restated duplicates', async () => {
    const { body } = await kit.paid('stock-fundamentals', { ticker: 'AAPL' });
    expect(body.company).toEqual({ name: 'Apple Inc.', ticker: 'AAPL', cik: '0000320193' });
    const facts = body.facts as Array<Record<string, unknown>>;
    expect(facts.map((f) => f.concept).sort()).toEqual(
      [
        'Assets',
        'EarningsPerShareBasic',
        'NetIncomeLoss',
        'RevenueFromContractWithCustomerExcludingAssessedTax',
      ].sort(),
    );
    expect(facts.find((f) => f.concept === 'Assets')).toEqual({
      concept: 'Assets',
      unit: 'USD',
      period: 'instant',
      end: '2025-09-27',
      value: 359241000000,
      form: '10-K',
    });
    const { body: revenue } = await kit.paid('stock-fundamentals', {
      ticker: 'AAPL',
      concept: 'us-gaap:RevenueFromContractWithCustomerExcludingAssessedTax',
    });
    const rows = revenue.facts as Array<{ period: string; value: number; form: string }>;
    expect(rows.map((r) => r.period)).toEqual([
      '2024-09-29/2025-09-27',
      '2025-03-30/2025-06-28',
      '2023-10-01/2024-09-28',
      '2022-09-25/2023-09-30',
    ]);
    expect(rows[0]).toMatchObject({ value: 416161000000, form: '10-K' });
  });

  it('refuses an unknown ticker or concept with 404 naming the field, a bad ticker with 400; nothing charged', async () => {
    expect((await kit.refused('stock-filings', { ticker: 'ZZZZ' }, 404)).error.param).toBe('ticker');
    expect((await kit.refused('stock-filings', { ticker: '1AB' }, 400)).error.param).toBe('ticker');
    expect(
      (await kit.refused('stock-fundamentals', { ticker: 'AAPL', concept: 'Vibes' }, 404)).error.param,
    ).toBe('concept');
    const none = await kit.paid('stock-fundamentals', { ticker: 'NOXB' });
    expect(none.body.facts).toEqual([]);
  });

  it('answers 502 naming SEC EDGAR when it is down; nothing charged', async () => {
    sec.fail('down', { status: 503 });
    try {
      expect((await kit.refused('stock-filings', { ticker: 'MSFT' }, 502)).error.message).toContain(
        'sec edgar',
      );
    } finally {
      sec.fail(null);
    }
  });
});

describe.each(DB_TARGETS)('the stock tools without SEC_USER_AGENT, on %s', (db) => {
  let kit: ToolKit;
  beforeAll(async () => {
    kit = await startToolKit(db, {});
  });
  afterAll(() => kit.stop());

  it('answer 503 naming the setting, before any charge', async () => {
    expect((await kit.refused('stock-filings', { ticker: 'AAPL' }, 503)).error.message).toContain(
      'SEC_USER_AGENT',
    );
    expect((await kit.refused('stock-fundamentals', { ticker: 'AAPL' }, 503)).error.message).toContain(
      'SEC_USER_AGENT',
    );
  });
});

describe('the stock tools when SEC EDGAR no longer has the ticker list', () => {
  let sec: FakeJsonUpstream;
  let kit: ToolKit;
  beforeAll(async () => {
    sec = await startFakeSecEdgar();
    // The ticker list is looked for where the server has no file: S3's 404 NoSuchKey, as www.sec.gov answers.
    kit = await startToolKit('sqlite', {
      SEC_USER_AGENT: 'Kasir Test ops@example.com',
      SEC_DATA_BASE_URL: sec.url,
      SEC_WWW_BASE_URL: `${sec.url}/moved`,
    });
  });
  afterAll(async () => {
    await kit.stop();
    await sec.close();
  });

  it('answers 503 unavailable naming the ticker list, never a 400 blaming the ticker; nothing charged', async () => {
    for (const tool of ['stock-filings', 'stock-fundamentals']) {
      const refused = await kit.refused(tool, { ticker: 'AAPL' }, 503);
      expect(refused.error.code, tool).toBe('unavailable');
      expect(refused.error.message, tool).toContain('ticker list');
      expect(refused.error.param, tool).toBeUndefined();
    }
  });
});
