/**
 * The paid tools this server can run, by name (the catalog's `tools/<name>` without the prefix). A tool missing
 * here is listed and quotable but answers 503 before any payment.
 */

import { autoOg } from './auto-og.js';
import { card } from './card.js';
import { codeImage } from './code-image.js';
import { meme } from './meme.js';
import { ogImage } from './og-image.js';
import { quoteCard } from './quote-card.js';
import { screenshot } from './screenshot.js';
import { tweetImage } from './tweet-image.js';
import type { ToolFactory } from './types.js';
import { youtubeThumbnail } from './youtube-thumbnail.js';

export const TOOLS: Readonly<Record<string, ToolFactory>> = {
  'og-image': ogImage,
  'youtube-thumbnail': youtubeThumbnail,
  card,
  'quote-card': quoteCard,
  'tweet-image': tweetImage,
  'code-image': codeImage,
  meme,
  screenshot,
  'auto-og': autoOg,
};
