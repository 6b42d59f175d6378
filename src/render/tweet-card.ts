/**
 * The tweet image (1200×675, X's in-feed image shape): an avatar disc with the name's first letter, the display
 * name, @handle, and the text fitted below; emoji drawn with Noto Emoji.
 */
import { div, text } from './el.js';
import { fitText } from './fit.js';
import { fonts, SANS } from './fonts.js';
import { type RenderedPng, renderPng } from './png.js';
import type { Theme } from './themes.js';

export const TWEET_SIZE = { width: 1200, height: 675 } as const;

export async function renderTweetCard(
  post: { text: string; name: string; handle: string },
  theme: Theme,
): Promise<RenderedPng> {
  const { width, height } = TWEET_SIZE;
  const fontSet = fonts().withEmoji;
  const pad = 72;
  const inner = width - 2 * pad;
  const body = await fitText(
    post.text,
    {
      width: inner,
      height: 380,
      maxSize: 56,
      minSize: 18,
      lineHeight: 1.3,
      fontWeight: 400,
      fontFamily: SANS,
    },
    fontSet,
  );
  const initial = Array.from(post.name.trim())[0]?.toUpperCase() ?? '?';
  const root = div(
    { width, height, padding: pad, backgroundColor: theme.background, flexDirection: 'column' },
    div(
      { alignItems: 'center' },
      div(
        {
          width: 96,
          height: 96,
          borderRadius: 48,
          backgroundColor: theme.accent,
          color: '#ffffff',
          alignItems: 'center',
          justifyContent: 'center',
          fontFamily: SANS,
          fontWeight: 700,
          fontSize: 44,
        },
        initial,
      ),
      div(
        { flexDirection: 'column', marginLeft: 28, width: inner - 124 },
        text({ fontFamily: SANS, fontWeight: 700, fontSize: 38, color: theme.text, lineClamp: 1 }, post.name),
        text({ fontFamily: SANS, fontSize: 30, color: theme.muted, marginTop: 4 }, `@${post.handle}`),
      ),
    ),
    text({ ...body.style, width: inner, marginTop: 44, color: theme.text }, post.text),
  );
  return renderPng(root, { width, height }, fontSet);
}
