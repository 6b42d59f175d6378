/**
 * tools/stock-fundamentals: reported financial facts of a US company from its XBRL filings (EDGAR company facts):
 * one us-gaap concept's history, or the latest value of each headline concept; newest first. Not a share price.
 */
import { ApiError } from '../http/errors.js';
import type { ToolFactory } from './types.js';
import { type FactPoint, secEdgar } from './upstreams/sec-edgar.js';

/** Facts change when a company files (quarterly). */
const CACHE_TTL_MS = 6 * 60 * 60 * 1000;

/** The headline concepts shown when no concept is asked for. */
const HEADLINE = [
  'Revenues',
  'RevenueFromContractWithCustomerExcludingAssessedTax',
  'NetIncomeLoss',
  'OperatingIncomeLoss',
  'GrossProfit',
  'EarningsPerShareBasic',
  'EarningsPerShareDiluted',
  'Assets',
  'Liabilities',
  'StockholdersEquity',
  'CashAndCashEquivalentsAtCarryingValue',
  'NetCashProvidedByUsedInOperatingActivities',
];

interface Row {
  concept: string;
  unit: string;
  /** `start/end` (an ISO 8601 interval) for a flow, `instant` for a balance at `end`. */
  period: string;
  end: string;
  value: number;
  form: string;
  filed: string;
}

const newestFirst = (a: Row, b: Row) => b.end.localeCompare(a.end) || b.filed.localeCompare(a.filed);

/** One row per period and unit: a value restated in later filings is kept as last filed. */
function rowsOf(concept: string, units: Record<string, FactPoint[]>): Row[] {
  const byPeriod = new Map<string, Row>();
  for (const [unit, points] of Object.entries(units)) {
    for (const p of points) {
      const period = p.start ? `${p.start}/${p.end}` : 'instant';
      const key = `${unit} ${period} ${p.end}`;
      const prior = byPeriod.get(key);
      if (!prior || p.filed > prior.filed) {
        byPeriod.set(key, { concept, unit, period, end: p.end, value: p.val, form: p.form, filed: p.filed });
      }
    }
  }
  return [...byPeriod.values()].sort(newestFirst);
}

export const stockFundamentals: ToolFactory = (deps) => {
  const edgar = secEdgar(deps);
  if ('missing' in edgar) return edgar;
  return {
    cacheTtlMs: CACHE_TTL_MS,
    async run(input, call) {
      const limit = Number(input.limit ?? 20);
      const company = await edgar.company(String(input.ticker));
      const { name, facts } = await edgar.usGaapFacts(company.cik, call.signal);
      const byLowerName = new Map(Object.keys(facts).map((k) => [k.toLowerCase(), k]));
      let rows: Row[];
      if (typeof input.concept === 'string' && input.concept.trim()) {
        const wanted = input.concept.trim().replace(/^us-gaap:/i, '');
        const concept = byLowerName.get(wanted.toLowerCase());
        if (!concept) {
          const message = `${company.ticker} reports no us-gaap concept ${wanted}`;
          throw new ApiError('not_found', message, [{ field: 'concept', message }]);
        }
        rows = rowsOf(concept, facts[concept]?.units ?? {});
      } else {
        rows = HEADLINE.flatMap((c) => rowsOf(c, facts[c]?.units ?? {}).slice(0, 1)).sort(newestFirst);
      }
      return {
        company: { name: name || company.name, ticker: company.ticker, cik: company.cik },
        facts: rows.slice(0, limit).map(({ filed: _filed, ...row }) => row),
      };
    },
  };
};
