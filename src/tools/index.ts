/**
 * The paid tools this server can run, by name (the catalog's `tools/<name>` without the prefix). A tool missing
 * here is listed and quotable but answers 503 before any payment.
 */
import { addressId } from './address-id.js';
import { defiTvl } from './defi-tvl.js';
import { dexPairs } from './dex-pairs.js';
import { embed } from './embed.js';
import { exchangeRate } from './exchange-rate.js';
import { gasPrice } from './gas-price.js';
import { moderate } from './moderate.js';
import { ocrId } from './ocr-id.js';
import { perpMarkets } from './perp-markets.js';
import { productListing } from './product-listing.js';
import { rpc } from './rpc.js';
import { search } from './search.js';
import { tokenPrice } from './token-price.js';
import type { ToolFactory } from './types.js';

export const TOOLS: Readonly<Record<string, ToolFactory>> = {
  'address-id': addressId,
  'defi-tvl': defiTvl,
  'dex-pairs': dexPairs,
  embed,
  'exchange-rate': exchangeRate,
  'gas-price': gasPrice,
  moderate,
  'ocr-id': ocrId,
  'perp-markets': perpMarkets,
  'product-listing': productListing,
  rpc,
  search,
  'token-price': tokenPrice,
};
