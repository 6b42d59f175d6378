/**
 * A fake SEC EDGAR, both hosts on one server: www.sec.gov's /files/company_tickers.json and data.sec.gov's
 * /submissions/CIK##########.json and /api/xbrl/companyfacts/CIK##########.json, from recorded shapes. Like SEC, it
 * answers 403 to a client whose User-Agent names no contact, and S3's 404 NoSuchKey XML for an unknown file.
 */
import data from './fixtures/sec-edgar.json' with { type: 'json' };
import { type FakeAnswer, type FakeJsonUpstream, startFakeJsonUpstream } from './json-upstream.js';

const noSuchKey: FakeAnswer = {
  status: 404,
  raw: '<?xml version="1.0" encoding="UTF-8"?><Error><Code>NoSuchKey</Code><Message>The specified key does not exist.</Message></Error>',
};

export function startFakeSecEdgar(): Promise<FakeJsonUpstream> {
  const submissions = data.submissions as Record<string, unknown>;
  const facts = data.companyfacts as Record<string, unknown>;
  return startFakeJsonUpstream({
    errorBody: (_status, message) => message,
    authorize: (req) =>
      /@/.test(String(req.headers['user-agent'] ?? ''))
        ? undefined
        : { status: 403, raw: '<h1>Your Request Originates from an Undeclared Automated Tool</h1>' },
    routes: [
      {
        method: 'GET',
        path: /^\/files\/company_tickers\.json$/,
        answer: () => ({ body: data.company_tickers }),
      },
      {
        method: 'GET',
        path: /^\/submissions\/CIK(\d{10})\.json$/,
        answer: (_req, m) =>
          submissions[m[1] as string] ? { body: submissions[m[1] as string] } : noSuchKey,
      },
      {
        method: 'GET',
        path: /^\/api\/xbrl\/companyfacts\/CIK(\d{10})\.json$/,
        answer: (_req, m) => (facts[m[1] as string] ? { body: facts[m[1] as string] } : noSuchKey),
      },
    ],
  });
}
