/**
 * The meme: the caller's image, 1080 px wide at its own aspect ratio (height kept within 360..1920, the image
 * cropped to fill), with the top and bottom lines in bold white capitals outlined in black, each fitted to a
 * quarter of the height.
 */
import { div, img, text } from './el.js';
import { fitText } from './fit.js';
import { fonts, SANS } from './fonts.js';
import { type RenderedPng, renderPng } from './png.js';
import type { RemoteImage } from './remote-image.js';

export const MEME_WIDTH = 1080;

export function memeHeight(image: { width: number; height: number }): number {
  return Math.min(1920, Math.max(360, Math.round((MEME_WIDTH * image.height) / image.width)));
}

export async function renderMeme(image: RemoteImage, top: string, bottom: string): Promise<RenderedPng> {
  const width = MEME_WIDTH;
  const height = memeHeight(image);
  const fontSet = fonts().text;
  const pad = 28;
  const inner = width - 2 * pad;
  const box = {
    width: inner,
    height: Math.floor(height * 0.26),
    maxSize: 96,
    minSize: 22,
    lineHeight: 1.1,
    fontWeight: 700,
    fontFamily: SANS,
  };
  const upper = [top.toUpperCase(), bottom.toUpperCase()] as const;
  const [t, b] = await Promise.all(upper.map((line) => fitText(line, box, fontSet)));
  const caption = (style: Record<string, string | number>, line: string) =>
    text(
      {
        ...style,
        width: inner,
        color: '#ffffff',
        textAlign: 'center',
        justifyContent: 'center',
        WebkitTextStroke: '3px #000000',
      },
      line,
    );
  const root = div(
    {
      width,
      height,
      padding: pad,
      position: 'relative',
      flexDirection: 'column',
      justifyContent: 'space-between',
      backgroundColor: '#000000',
    },
    img(image.dataUri, width, height, { position: 'absolute', top: 0, left: 0, objectFit: 'cover' }),
    caption(t?.style ?? {}, upper[0]),
    caption(b?.style ?? {}, upper[1]),
  );
  return renderPng(root, { width, height }, fontSet);
}
