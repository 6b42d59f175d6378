/**
 * tools/exchange-rate: ECB reference rates through Frankfurter. Every pair is cross-rated through the dollar table
 * (rate = to-per-USD / from-per-USD), so one upstream answer serves any base.
 */
import { invalidInput } from '../http/errors.js';
import type { Tool, ToolFactory } from './types.js';
import { frankfurter } from './upstreams/frankfurter.js';

/** The ECB publishes once per working day (about 16:00 CET); an hour old is still today's table. */
const CACHE_TTL_MS = 60 * 60 * 1000;

/** Rates keep 8 significant digits (past that is float noise); converted amounts 4 decimals. */
const rateOf = (x: number) => Number(x.toPrecision(8));
const moneyOf = (x: number) => Math.round(x * 10_000) / 10_000;

export const exchangeRate: ToolFactory = (deps) => {
  const ecb = frankfurter(deps);
  const tool: Tool = {
    cacheTtlMs: CACHE_TTL_MS,
    cacheKey: (input) => [
      String(input.from ?? 'USD').toUpperCase(),
      String(input.to ?? '').toUpperCase(),
      input.amount ?? 1,
    ],
    async run(input, call) {
      const from = String(input.from ?? 'USD').toUpperCase();
      const wanted =
        typeof input.to === 'string' ? [...new Set(input.to.toUpperCase().split(','))] : undefined;
      const amount = typeof input.amount === 'number' ? input.amount : 1;
      const table = await ecb.usdTable(call.signal);
      const known = Object.keys(table.perUsd).sort();
      const fromPerUsd = table.perUsd[from];
      const unknown = (wanted ?? []).filter((c) => table.perUsd[c] === undefined);
      if (fromPerUsd === undefined || unknown.length) {
        throw invalidInput([
          ...(fromPerUsd === undefined ? [{ field: 'from', message: `no reference rate for ${from}` }] : []),
          ...(unknown.length
            ? [{ field: 'to', message: `no reference rate for ${unknown.join(', ')}` }]
            : []),
          {
            field: fromPerUsd === undefined ? 'from' : 'to',
            message: `known currencies: ${known.join(', ')}`,
          },
        ]);
      }
      const targets = wanted ?? known.filter((c) => c !== from);
      const rates: Record<string, number> = {};
      const converted: Record<string, number> = {};
      for (const code of targets) {
        const rate = rateOf((table.perUsd[code] as number) / fromPerUsd);
        rates[code] = rate;
        converted[code] = moneyOf(amount * rate);
      }
      return {
        base: from,
        rates,
        amount,
        converted,
        as_of: table.date,
        source: 'European Central Bank reference rates via Frankfurter',
        note: 'Reference rates, published once per working day around 16:00 CET; non-USD pairs are cross-rated via USD. Not a dealing rate.',
      };
    },
  };
  return tool;
};
