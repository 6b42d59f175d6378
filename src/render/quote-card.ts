/** The quote card: the quote between curly quotation marks, fitted to the card, and its author under it. */
import { div, text } from './el.js';
import { fitText } from './fit.js';
import { fonts, SANS } from './fonts.js';
import { type RenderedPng, renderPng } from './png.js';
import type { Theme } from './themes.js';

export const QUOTE_SIZE = { width: 1200, height: 630 } as const;

export async function renderQuoteCard(quote: string, author: string, theme: Theme): Promise<RenderedPng> {
  const { width, height } = QUOTE_SIZE;
  const fontSet = fonts().text;
  const pad = 80;
  const border = 16;
  const inner = width - 2 * pad - border;
  const quoted = `“${quote}”`;
  const body = await fitText(
    quoted,
    {
      width: inner,
      height: 340,
      maxSize: 64,
      minSize: 20,
      lineHeight: 1.25,
      fontWeight: 700,
      fontFamily: SANS,
    },
    fontSet,
  );
  const by = await fitText(
    `—\u00a0${author}`,
    {
      width: inner,
      height: 80,
      maxSize: 34,
      minSize: 16,
      lineHeight: 1.2,
      fontWeight: 400,
      fontFamily: SANS,
    },
    fontSet,
  );
  const root = div(
    {
      width,
      height,
      padding: pad,
      backgroundColor: theme.background,
      flexDirection: 'column',
      justifyContent: 'center',
      borderLeft: `${border}px solid ${theme.accent}`,
    },
    text({ ...body.style, width: inner, color: theme.text }, quoted),
    text({ ...by.style, width: inner, marginTop: 36, color: theme.muted }, `—\u00a0${author}`),
  );
  return renderPng(root, { width, height }, fontSet);
}
