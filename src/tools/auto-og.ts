/**
 * tools/auto-og: reads an https page through the safe fetcher and draws a 1200×630 Open Graph card from its
 * title, description and site name, over its og:image when that image can be read (a page's image that is
 * refused or fails is left out: the page, not the caller, named it).
 */
import { drawCard } from '../render/draw.js';
import { imageMaxBytes, rendererFetcher } from '../render/fetcher.js';
import { readPageMeta } from '../render/page-meta.js';
import { OG_SIZE } from '../render/presets.js';
import { publishPng } from '../render/publish.js';
import { fetchError, fetchImage, type RemoteImage } from '../render/remote-image.js';
import { accentOf, themeOf } from '../render/themes.js';
import { workerPool } from '../workers/pool.js';
import type { ToolFactory } from './types.js';

/** The most of a page read for its tags. */
const PAGE_MAX_BYTES = 2 * 1024 * 1024;
const TITLE_MAX = 200;
const SUBTITLE_MAX = 300;

const cap = (text: string, max: number) => {
  const chars = Array.from(text);
  return chars.length <= max ? text : `${chars.slice(0, max - 1).join('')}…`;
};

export const autoOg: ToolFactory = (deps) => {
  const fetcher = rendererFetcher(deps.config);
  const pool = workerPool(deps.config.workers);
  return {
    preflight: () => pool.admit(),
    async run(input, call) {
      const theme = themeOf(input, 'dark');
      let page: { bytes: Buffer; url: string };
      try {
        page = await fetcher.fetchBuffer(String(input.url), {
          maxBytes: PAGE_MAX_BYTES,
          accept: ['text/html', 'application/xhtml+xml'],
          signal: call.signal,
        });
      } catch (err) {
        throw fetchError(err, 'url');
      }
      const meta = await readPageMeta(page.bytes, page.url);
      const host = new URL(page.url).hostname;
      let background: RemoteImage | undefined;
      if (meta.image) {
        background = await fetchImage(
          fetcher,
          meta.image,
          'og:image',
          imageMaxBytes(deps.config),
          call.signal,
        ).catch(() => undefined);
      }
      const title = cap(meta.title ?? host, TITLE_MAX);
      const card = {
        ...OG_SIZE,
        title,
        subtitle: cap(meta.description ?? page.url, SUBTITLE_MAX),
        footer: meta.siteName ?? host,
        theme,
        accent: accentOf(input, theme),
        background,
      };
      const rendered = await drawCard(pool, { kind: 'title', card }, call.signal);
      return {
        ...(await publishPng(deps.media, rendered)),
        sourceTitle: meta.title,
        sourceUrl: page.url,
        sourceImage: background ? meta.image : null,
        theme: theme.name,
      };
    },
  };
};
