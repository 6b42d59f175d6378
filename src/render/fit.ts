/**
 * Sizes text to its box: the largest font size at which the text, wrapped at word boundaries (long words broken
 * between characters), fits the box's height, found by laying it out with satori itself, so what is measured is
 * exactly what is drawn. Text never fits by being cut: only when it does not fit even at the smallest size are
 * whole lines clamped, ending in an ellipsis.
 */
import type { Font } from 'satori';
import { type Style, text } from './el.js';
import { measureHeight } from './png.js';

const yieldToLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

export interface FitBox {
  width: number;
  height: number;
  /** The largest and smallest font sizes to try, in px. */
  maxSize: number;
  minSize: number;
  lineHeight: number;
  fontWeight: number;
  fontFamily: string;
}

export interface FittedText {
  fontSize: number;
  /** The text's style: font, size, line height, wrapping (and a line clamp when even minSize overflowed). */
  style: Style;
}

function styleAt(box: FitBox, fontSize: number): Style {
  return {
    fontFamily: box.fontFamily,
    fontWeight: box.fontWeight,
    fontSize,
    lineHeight: box.lineHeight,
    wordBreak: 'break-word',
  };
}

/** The style that fits `content` in `box` (binary search on the font size, each step one satori layout). */
export async function fitText(content: string, box: FitBox, fontSet: Font[]): Promise<FittedText> {
  // With the work on the event loop (WORKER_THREADS=0), yield between layouts so other requests are served in the
  // gaps; on a worker thread the yield costs nothing.
  const fits = async (size: number) => {
    await yieldToLoop();
    const element = text({ ...styleAt(box, size), width: box.width }, content);
    return (await measureHeight(element, box.width, fontSet)) <= box.height;
  };
  let lo = box.minSize;
  let hi = box.maxSize;
  if (await fits(hi)) return { fontSize: hi, style: styleAt(box, hi) };
  if (!(await fits(lo))) {
    const lines = Math.max(1, Math.floor(box.height / (lo * box.lineHeight)));
    return { fontSize: lo, style: { ...styleAt(box, lo), lineClamp: lines } };
  }
  // Invariant: lo fits, hi does not.
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2);
    if (await fits(mid)) lo = mid;
    else hi = mid;
  }
  return { fontSize: lo, style: styleAt(box, lo) };
}
