/** Media keys (32 lowercase hex + optional extension) and the content types kasir accepts for media. */
import { randomBytes } from 'node:crypto';

export const MEDIA_KEY_PATTERN = /^[0-9a-f]{32}(\.[a-z0-9]{1,8})?$/;

const EXTENSIONS: Record<string, string> = {
  'image/png': 'png',
  'image/jpeg': 'jpg',
  'image/jpg': 'jpg',
  'image/webp': 'webp',
  'image/gif': 'gif',
  'image/avif': 'avif',
  'image/svg+xml': 'svg',
  'image/bmp': 'bmp',
  'image/tiff': 'tiff',
  'image/heic': 'heic',
  'video/mp4': 'mp4',
  'video/webm': 'webm',
  'video/quicktime': 'mov',
  'video/x-matroska': 'mkv',
  'video/mpeg': 'mpeg',
  'audio/mpeg': 'mp3',
  'audio/mp3': 'mp3',
  'audio/wav': 'wav',
  'audio/x-wav': 'wav',
  'audio/wave': 'wav',
  'audio/ogg': 'ogg',
  'audio/opus': 'opus',
  'audio/flac': 'flac',
  'audio/aac': 'aac',
  'audio/mp4': 'm4a',
  'audio/x-m4a': 'm4a',
  'audio/webm': 'weba',
  'audio/pcm': 'pcm',
};

const MEDIA_TYPE = /^(image|video|audio)\/[a-z0-9][a-z0-9.+-]*$/;

/** The bare media type (`image/png`) of a Content-Type header if it is image/*, video/* or audio/*, else null. */
export function acceptedMediaType(header: string | undefined): string | null {
  const type = header?.split(';', 1)[0]?.trim().toLowerCase();
  return type && MEDIA_TYPE.test(type) ? type : null;
}

/** A fresh random key, with the extension of the content type when there is a common one. */
export function newMediaKey(contentType: string): string {
  const ext = EXTENSIONS[contentType];
  const id = randomBytes(16).toString('hex');
  return ext ? `${id}.${ext}` : id;
}

export function isMediaKey(key: string): boolean {
  return MEDIA_KEY_PATTERN.test(key);
}
