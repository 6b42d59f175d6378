/**
 * The paid tools this server can run, by name (the catalog's `tools/<name>` without the prefix). A tool missing
 * here is listed and quotable but answers 503 before any payment.
 */
import { addressId } from './address-id.js';
import { autoOg } from './auto-og.js';
import { card } from './card.js';
import { codeImage } from './code-image.js';
import { defiTvl } from './defi-tvl.js';
import { dexPairs } from './dex-pairs.js';
import { domainLookup } from './domain-lookup.js';
import { embed } from './embed.js';
import { exchangeRate } from './exchange-rate.js';
import { faceCompare } from './face-compare.js';
import { faceDetect } from './face-detect.js';
import { faceEmbed } from './face-embed.js';
import { gasPrice } from './gas-price.js';
import { kycVerify } from './kyc-verify.js';
import { marketBrief } from './market-brief.js';
import { meme } from './meme.js';
import { moderate } from './moderate.js';
import { ocrId } from './ocr-id.js';
import { ogImage } from './og-image.js';
import { perpMarkets } from './perp-markets.js';
import { productListing } from './product-listing.js';
import { quoteCard } from './quote-card.js';
import { rpc } from './rpc.js';
import { screenshot } from './screenshot.js';
import { search } from './search.js';
import { stockFilings } from './stock-filings.js';
import { stockFundamentals } from './stock-fundamentals.js';
import { tokenPrice } from './token-price.js';
import { tweetImage } from './tweet-image.js';
import type { ToolFactory } from './types.js';
import { youtubeThumbnail } from './youtube-thumbnail.js';

export const TOOLS: Readonly<Record<string, ToolFactory>> = {
  'address-id': addressId,
  'auto-og': autoOg,
  card,
  'code-image': codeImage,
  'defi-tvl': defiTvl,
  'dex-pairs': dexPairs,
  'domain-lookup': domainLookup,
  embed,
  'exchange-rate': exchangeRate,
  'face-compare': faceCompare,
  'face-detect': faceDetect,
  'face-embed': faceEmbed,
  'gas-price': gasPrice,
  'kyc-verify': kycVerify,
  'market-brief': marketBrief,
  meme,
  moderate,
  'ocr-id': ocrId,
  'og-image': ogImage,
  'perp-markets': perpMarkets,
  'product-listing': productListing,
  'quote-card': quoteCard,
  rpc,
  screenshot,
  search,
  'stock-filings': stockFilings,
  'stock-fundamentals': stockFundamentals,
  'token-price': tokenPrice,
  'tweet-image': tweetImage,
  'youtube-thumbnail': youtubeThumbnail,
};
