/**
 * A rendered PNG stored in the media store and described the same way by every renderer: `url` (the link),
 * `contentType`, `width`, `height`, `sizeBytes`.
 */
import { type Media, saveBuffer } from '../media/service.js';
import type { RenderedPng } from './png.js';

export interface PublishedImage {
  url: string;
  contentType: 'image/png';
  width: number;
  height: number;
  sizeBytes: number;
}

export async function publishPng(media: Media, rendered: RenderedPng): Promise<PublishedImage> {
  const saved = await saveBuffer(media, 'image/png', rendered.png);
  return {
    url: saved.url,
    contentType: 'image/png',
    width: rendered.width,
    height: rendered.height,
    sizeBytes: saved.sizeBytes,
  };
}
