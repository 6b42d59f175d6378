/** tools/meme: top and bottom captions over the caller's image, read through the safe fetcher. */
import { imageMaxBytes, rendererFetcher } from '../render/fetcher.js';
import { renderMeme } from '../render/meme-card.js';
import { publishPng } from '../render/publish.js';
import { fetchImage } from '../render/remote-image.js';
import type { ToolFactory } from './types.js';

export const meme: ToolFactory = (deps) => {
  const fetcher = rendererFetcher(deps.config);
  return {
    async run(input, call) {
      const image = await fetchImage(
        fetcher,
        String(input.image),
        'image',
        imageMaxBytes(deps.config),
        call.signal,
      );
      const rendered = await renderMeme(image, String(input.top), String(input.bottom));
      return { ...(await publishPng(deps.media, rendered)) };
    },
  };
};
