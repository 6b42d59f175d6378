/** tools/quote-card: a 1200×630 card with a quote and its author (theme light or dark). */
import { drawCard } from '../render/draw.js';
import { publishPng } from '../render/publish.js';
import { themeOf } from '../render/themes.js';
import { workerPool } from '../workers/pool.js';
import type { ToolFactory } from './types.js';

export const quoteCard: ToolFactory = (deps) => {
  const pool = workerPool(deps.config.workers);
  return {
    preflight: () => pool.admit(),
    async run(input, call) {
      const theme = themeOf(input, 'light');
      const job = { kind: 'quote', quote: String(input.quote), author: String(input.author), theme } as const;
      const rendered = await drawCard(pool, job, call.signal);
      return { ...(await publishPng(deps.media, rendered)), theme: theme.name };
    },
  };
};
