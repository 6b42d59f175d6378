/**
 * Draws an element tree to a PNG: satori lays it out to SVG (with the text as glyph outlines), resvg rasterises
 * it. On a worker thread (workers/pool.ts) resvg runs in that thread, which is there for it; on the main thread
 * (a pool of 0 threads) it runs on libuv's pool (renderAsync), off the event loop. The PNG is exactly
 * `width`×`height`, the same bytes either way.
 */
import { isMainThread } from 'node:worker_threads';
import type { Font } from 'satori';
import { Slots } from '../screenshot/slots.js';
import type { El } from './el.js';

/**
 * Rasterisations at once: each takes a libuv pool thread (four by default, shared with DNS lookups and file
 * writes) and up to 36 MB of pixels for a 3000×3000 card; two keep the pool free for the rest of kasir.
 */
const rasterising = new Slots(2);

// satori (with its layout engine) and resvg load on the first card, not at start: most instances draw none.
let engines: Promise<[typeof import('satori'), typeof import('@resvg/resvg-js')]> | undefined;
const loadEngines = () => {
  engines ??= Promise.all([import('satori'), import('@resvg/resvg-js')]);
  return engines;
};

export interface RenderedPng {
  png: Buffer;
  width: number;
  height: number;
}

/** Renders `element` at exactly `width`×`height`, or at `width` and its laid-out height when `height` is omitted. */
export async function renderPng(
  element: El,
  size: { width: number; height?: number },
  fontSet: Font[],
): Promise<RenderedPng> {
  const [{ default: satori }, { Resvg, renderAsync }] = await loadEngines();
  const svg = await satori(element as never, { ...size, fonts: fontSet } as never);
  const options = { fitTo: { mode: 'original' as const }, font: { loadSystemFonts: false } };
  if (!isMainThread) {
    const rendered = new Resvg(svg, options).render();
    return { png: rendered.asPng(), width: rendered.width, height: rendered.height };
  }
  const release = await rasterising.acquire();
  try {
    const rendered = await renderAsync(svg, options);
    return { png: rendered.asPng(), width: rendered.width, height: rendered.height };
  } finally {
    release();
  }
}

/** The laid-out height of `element` placed in a box `width` wide (text wraps; nothing is drawn). */
export async function measureHeight(element: El, width: number, fontSet: Font[]): Promise<number> {
  const [{ default: satori }] = await loadEngines();
  const svg = await satori(element as never, { width, fonts: fontSet, embedFont: false } as never);
  const m = /<svg[^>]*\sheight="([\d.]+)"/.exec(svg);
  return m ? Number(m[1]) : Number.POSITIVE_INFINITY;
}
