/** tools/quote-card: a 1200×630 card with a quote and its author (theme light or dark). */
import { publishPng } from '../render/publish.js';
import { renderQuoteCard } from '../render/quote-card.js';
import { themeOf } from '../render/themes.js';
import type { ToolFactory } from './types.js';

export const quoteCard: ToolFactory = (deps) => ({
  async run(input) {
    const theme = themeOf(input, 'light');
    const rendered = await renderQuoteCard(String(input.quote), String(input.author), theme);
    return { ...(await publishPng(deps.media, rendered)), theme: theme.name };
  },
});
