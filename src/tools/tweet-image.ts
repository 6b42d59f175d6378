/** tools/tweet-image: a 1200×675 image styled as a post, with emoji (theme light by default, or dark). */
import { drawCard } from '../render/draw.js';
import { publishPng } from '../render/publish.js';
import { themeOf } from '../render/themes.js';
import { workerPool } from '../workers/pool.js';
import type { ToolFactory } from './types.js';

export const tweetImage: ToolFactory = (deps) => {
  const pool = workerPool(deps.config.workers);
  return {
    preflight: () => pool.admit(),
    async run(input, call) {
      const theme = themeOf(input, 'light');
      const post = { text: String(input.text), name: String(input.name), handle: String(input.handle) };
      const rendered = await drawCard(pool, { kind: 'tweet', post, theme }, call.signal);
      return { ...(await publishPng(deps.media, rendered)), theme: theme.name };
    },
  };
};
