/**
 * The title-and-subtitle card behind og-image, card (every preset), youtube-thumbnail and auto-og: an accent bar,
 * the title and the subtitle fitted to their boxes, on the theme's colour or over a background image under a scrim.
 * Sizes scale with the card's shorter side, so one layout serves 1200×627 to 3000×3000.
 */
import { type Child, div, img, text } from './el.js';
import { fitText } from './fit.js';
import { fonts, SANS } from './fonts.js';
import { type RenderedPng, renderPng } from './png.js';
import type { RemoteImage } from './remote-image.js';
import type { Theme } from './themes.js';

export interface TitleCard {
  width: number;
  height: number;
  title: string;
  subtitle: string;
  theme: Theme;
  accent: string;
  background?: RemoteImage;
  /** A small line under the subtitle (auto-og: the site's name). */
  footer?: string;
}

export async function renderTitleCard(card: TitleCard): Promise<RenderedPng> {
  const { width, height, theme } = card;
  const fontSet = fonts().text;
  const s = Math.min(width, height) / 630;
  const pad = Math.round(72 * s);
  const inner = width - 2 * pad;
  const bar = Math.round(12 * s);
  const gap = Math.round(28 * s);
  const avail = height - 2 * pad - bar - gap * 2 - (card.footer ? Math.round(40 * s) : 0);
  const title = await fitText(
    card.title,
    {
      width: inner,
      height: Math.floor(avail * 0.64),
      maxSize: Math.round(88 * s),
      minSize: Math.round(26 * s),
      lineHeight: 1.12,
      fontWeight: 700,
      fontFamily: SANS,
    },
    fontSet,
  );
  const subtitle = await fitText(
    card.subtitle,
    {
      width: inner,
      height: Math.floor(avail * 0.3),
      maxSize: Math.round(40 * s),
      minSize: Math.round(16 * s),
      lineHeight: 1.3,
      fontWeight: 400,
      fontFamily: SANS,
    },
    fontSet,
  );
  const layers: Child[] = [];
  if (card.background) {
    layers.push(
      img(card.background.dataUri, width, height, {
        position: 'absolute',
        top: 0,
        left: 0,
        objectFit: 'cover',
      }),
      div({ position: 'absolute', top: 0, left: 0, width, height, backgroundColor: theme.scrim }),
    );
  }
  const content = div(
    { flexDirection: 'column', width: inner, height: height - 2 * pad, justifyContent: 'center' },
    div({ width: Math.round(120 * s), height: bar, backgroundColor: card.accent, borderRadius: bar / 2 }),
    text({ ...title.style, width: inner, marginTop: gap, color: theme.text }, card.title),
    text({ ...subtitle.style, width: inner, marginTop: gap, color: theme.muted }, card.subtitle),
    ...(card.footer
      ? [
          text(
            {
              fontFamily: SANS,
              fontSize: Math.round(22 * s),
              color: card.accent,
              marginTop: Math.round(18 * s),
              lineClamp: 1,
            },
            card.footer,
          ),
        ]
      : []),
  );
  const root = div(
    { width, height, backgroundColor: theme.background, padding: pad, position: 'relative' },
    ...layers,
    content,
  );
  return renderPng(root, { width, height }, fontSet);
}
