/**
 * The paid tools this server can run, by name (the catalog's `tools/<name>` without the prefix). A tool missing
 * here is listed and quotable but answers 503 before any payment.
 */
import { exchangeRate } from './exchange-rate.js';
import { perpMarkets } from './perp-markets.js';
import type { ToolFactory } from './types.js';

export const TOOLS: Readonly<Record<string, ToolFactory>> = {
  'exchange-rate': exchangeRate,
  'perp-markets': perpMarkets,
};
