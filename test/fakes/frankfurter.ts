/**
 * A fake Frankfurter (https://frankfurter.dev/v1/): GET /v1/latest?base=&symbols= answered from a recorded ECB
 * table (EUR base), rebased as Frankfurter does; an unknown currency is its 404 `{"message":"not found"}`.
 */
import latest from './fixtures/frankfurter-latest-eur.json' with { type: 'json' };
import { type FakeJsonUpstream, startFakeJsonUpstream } from './json-upstream.js';

const EUR_RATES: Record<string, number> = { ...latest.rates, EUR: 1 };

export function startFakeFrankfurter(): Promise<FakeJsonUpstream> {
  return startFakeJsonUpstream({
    basePath: '/v1',
    errorBody: (_status, message) => ({ message: message.toLowerCase() }),
    routes: [
      {
        method: 'GET',
        path: /^\/latest$/,
        answer(req) {
          const base = (req.query.get('base') ?? 'EUR').toUpperCase();
          const per = EUR_RATES[base];
          const symbols = req.query.get('symbols')?.toUpperCase().split(',');
          if (per === undefined || symbols?.some((s) => EUR_RATES[s] === undefined)) {
            return { status: 404, body: { message: 'not found' } };
          }
          const rates: Record<string, number> = {};
          for (const [code, eur] of Object.entries(EUR_RATES)) {
            if (code === base || (symbols && !symbols.includes(code))) continue;
            rates[code] = Number((eur / per).toPrecision(5));
          }
          return { body: { amount: 1.0, base, date: latest.date, rates } };
        },
      },
    ],
  });
}
