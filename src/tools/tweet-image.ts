/** tools/tweet-image: a 1200×675 image styled as a post, with emoji (theme light by default, or dark). */
import { publishPng } from '../render/publish.js';
import { themeOf } from '../render/themes.js';
import { renderTweetCard } from '../render/tweet-card.js';
import type { ToolFactory } from './types.js';

export const tweetImage: ToolFactory = (deps) => ({
  async run(input) {
    const theme = themeOf(input, 'light');
    const rendered = await renderTweetCard(
      { text: String(input.text), name: String(input.name), handle: String(input.handle) },
      theme,
    );
    return { ...(await publishPng(deps.media, rendered)), theme: theme.name };
  },
});
