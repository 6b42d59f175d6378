/** tools/stock-filings: a US company's recent SEC filings (EDGAR submissions), newest first, optionally of one form. */
import type { ToolFactory } from './types.js';
import { secEdgar } from './upstreams/sec-edgar.js';

/** Companies file a few times a week at most. */
const CACHE_TTL_MS = 60 * 60 * 1000;

export const stockFilings: ToolFactory = (deps) => {
  const edgar = secEdgar(deps);
  if ('missing' in edgar) return edgar;
  return {
    cacheTtlMs: CACHE_TTL_MS,
    async run(input, call) {
      const limit = Number(input.limit ?? 20);
      const form =
        typeof input.form === 'string' && input.form.trim() ? input.form.trim().toUpperCase() : undefined;
      const company = await edgar.company(String(input.ticker));
      const subs = await edgar.submissions(company.cik, call.signal);
      const { recent } = subs;
      const filings: Array<{ form: string; filed: string; link: string }> = [];
      // EDGAR lists recent filings newest first.
      for (let i = 0; i < recent.form.length && filings.length < limit; i++) {
        const f = recent.form[i] as string;
        if (form && f.toUpperCase() !== form) continue;
        filings.push({
          form: f,
          filed: recent.filingDate[i] as string,
          link: edgar.documentUrl(
            company.cik,
            recent.accessionNumber[i] as string,
            recent.primaryDocument[i] ?? '',
          ),
        });
      }
      return {
        company: { name: subs.name || company.name, ticker: company.ticker, cik: company.cik, sic: subs.sic },
        filings,
      };
    },
  };
};
