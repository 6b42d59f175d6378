/**
 * SEC EDGAR (https://www.sec.gov/search-filings/edgar-application-programming-interfaces): the ticker map
 * (www.sec.gov/files/company_tickers.json), a company's submissions and its XBRL company facts (data.sec.gov).
 * SEC asks every client to name itself with a contact in the User-Agent (SEC_USER_AGENT) and to stay under 10
 * requests a second; the upstream gate keeps kasir well inside that.
 */

import { CallAbort, type CallSignal } from '../../http/call-signal.js';
import { ApiError } from '../../http/errors.js';
import { UpstreamError } from '../../http/upstream-error.js';
import type { ToolDeps } from '../types.js';
import { JsonUpstream } from './json-upstream.js';
import { referenceFileFailure } from './reference-file.js';

/** The ticker map changes a few times a day at most. */
const TICKER_MAP_TTL_MS = 6 * 60 * 60 * 1000;

export interface Company {
  name: string;
  ticker: string;
  /** Ten digits, zero-padded, as EDGAR's file names use it. */
  cik: string;
}

export interface Submissions {
  name: string;
  sic: string | null;
  sicDescription: string | null;
  recent: {
    accessionNumber: string[];
    filingDate: string[];
    form: string[];
    primaryDocument: string[];
    primaryDocDescription?: string[];
  };
}

export interface FactPoint {
  start?: string;
  end: string;
  val: number;
  accn: string;
  fy?: number | null;
  fp?: string | null;
  form: string;
  filed: string;
  frame?: string;
}

export type Facts = Record<string, { label?: string; units?: Record<string, FactPoint[]> }>;

const malformed = (what: string) =>
  new UpstreamError('upstream', `sec edgar answered ${what} in an unexpected shape`, {
    beforeFirstByte: true,
  });

/** `brk.b` → `BRK-B`: EDGAR writes share classes with a dash. */
export const edgarTicker = (ticker: string) => ticker.trim().toUpperCase().replace(/\./g, '-');

/** EDGAR's client, or the setting it lacks: SEC asks every caller to name itself (SEC_USER_AGENT). */
export function secEdgar(deps: ToolDeps): SecEdgar | { missing: string } {
  const userAgent = deps.config.tools.secUserAgent;
  return userAgent ? edgarClient(deps, userAgent) : { missing: 'SEC_USER_AGENT' };
}

export type SecEdgar = ReturnType<typeof edgarClient>;

function edgarClient(deps: ToolDeps, userAgent: string) {
  const { baseUrls } = deps.config.tools;
  const options = { headers: { 'user-agent': userAgent }, gate: 'sec' };
  const www = new JsonUpstream('sec edgar', baseUrls.secWww, deps.http, options);
  const data = new JsonUpstream('sec edgar', baseUrls.secData, deps.http, options);
  let tickers: { at: number; map: Promise<Map<string, { cik: number; title: string }>> } | undefined;

  // Shared by every call that waits on it, so not cut short by one of them hanging up (the tool timeout still holds).
  const tickerMap = () => {
    if (!tickers || Date.now() - tickers.at > TICKER_MAP_TTL_MS) {
      const map = www
        .get<Record<string, { cik_str?: unknown; ticker?: unknown; title?: unknown }>>(
          '/files/company_tickers.json',
          undefined,
          new CallAbort(),
        )
        .then((rows) => {
          if (!rows || typeof rows !== 'object') throw malformed('company_tickers.json');
          const out = new Map<string, { cik: number; title: string }>();
          for (const row of Object.values(rows)) {
            if (typeof row.ticker === 'string' && typeof row.cik_str === 'number') {
              out.set(row.ticker.toUpperCase(), { cik: row.cik_str, title: String(row.title ?? '') });
            }
          }
          return out;
        })
        .catch((err: unknown) => {
          throw referenceFileFailure("SEC EDGAR's ticker list (company_tickers.json)", err);
        });
      tickers = { at: Date.now(), map };
      // A failed fetch is not kept: the next call tries again.
      map.catch(() => {
        if (tickers?.map === map) tickers = undefined;
      });
    }
    return tickers.map;
  };

  return {
    /** The company of a ticker; a 404 naming `ticker` when EDGAR lists none. */
    async company(ticker: string): Promise<Company> {
      const wanted = edgarTicker(ticker);
      const row = (await tickerMap()).get(wanted);
      if (!row) {
        const message = `SEC EDGAR lists no company with the ticker ${wanted}`;
        throw new ApiError('not_found', message, [{ field: 'ticker', message }]);
      }
      return { name: row.title, ticker: wanted, cik: String(row.cik).padStart(10, '0') };
    },

    async submissions(cik: string, signal: CallSignal): Promise<Submissions> {
      const answer = await data.get<Record<string, unknown>>(
        `/submissions/CIK${cik}.json`,
        undefined,
        signal,
      );
      const recent = (answer?.filings as { recent?: Submissions['recent'] } | undefined)?.recent;
      if (!recent || !Array.isArray(recent.form) || !Array.isArray(recent.accessionNumber)) {
        throw malformed('submissions');
      }
      return {
        name: String(answer.name ?? ''),
        sic: typeof answer.sic === 'string' && answer.sic ? answer.sic : null,
        sicDescription: typeof answer.sicDescription === 'string' ? answer.sicDescription : null,
        recent,
      };
    },

    /** The company's us-gaap facts (an empty set for a filer without XBRL financial data). */
    async usGaapFacts(cik: string, signal: CallSignal): Promise<{ name: string; facts: Facts }> {
      let answer: Record<string, unknown>;
      try {
        answer = await data.get(`/api/xbrl/companyfacts/CIK${cik}.json`, undefined, signal);
      } catch (err) {
        // EDGAR has no companyfacts file for filers that never reported XBRL financials.
        if (err instanceof UpstreamError && err.options.status === 404) return { name: '', facts: {} };
        throw err;
      }
      const facts = answer?.facts as Record<string, Facts> | undefined;
      if (!facts || typeof facts !== 'object') throw malformed('companyfacts');
      return { name: String(answer.entityName ?? ''), facts: facts['us-gaap'] ?? {} };
    },

    /** A filing's primary document on www.sec.gov. */
    documentUrl(cik: string, accession: string, document: string): string {
      return `${baseUrls.secWww}/Archives/edgar/data/${Number(cik)}/${accession.replace(/-/g, '')}/${document}`;
    },
  };
}
