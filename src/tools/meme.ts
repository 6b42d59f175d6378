/** tools/meme: top and bottom captions over the caller's image, read through the safe fetcher. */
import { drawCard } from '../render/draw.js';
import { imageMaxBytes, rendererFetcher } from '../render/fetcher.js';
import { publishPng } from '../render/publish.js';
import { fetchImage } from '../render/remote-image.js';
import { workerPool } from '../workers/pool.js';
import type { ToolFactory } from './types.js';

export const meme: ToolFactory = (deps) => {
  const fetcher = rendererFetcher(deps.config);
  const pool = workerPool(deps.config.workers);
  return {
    preflight: () => pool.admit(),
    async run(input, call) {
      const image = await fetchImage(
        fetcher,
        String(input.image),
        'image',
        imageMaxBytes(deps.config),
        call.signal,
      );
      const rendered = await drawCard(
        pool,
        { kind: 'meme', image, top: String(input.top), bottom: String(input.bottom) },
        call.signal,
      );
      return { ...(await publishPng(deps.media, rendered)) };
    },
  };
};
