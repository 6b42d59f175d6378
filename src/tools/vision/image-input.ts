/**
 * The image a vision tool reads, from whichever form the caller gave: a public https URL (through the safe
 * fetcher), a kasir /v1/media link (http or https: read from the store by key; deleted right after reading when the tool keeps nothing),
 * or inline base64 / a data: URI. The bytes are decoded and bounded with sharp, turned upright, scaled down to the
 * side the model is sent and re-encoded as JPEG, which also drops every metadata block (EXIF, GPS).
 */
import type { Readable } from 'node:stream';
import { bareHost, hostPort } from '../../config/fetch.js';
import type { VisionConfig } from '../../config/vision.js';
import { FetchFailure } from '../../fetch/errors.js';
import { SafeFetcher } from '../../fetch/safe-fetch.js';
import { invalidInput } from '../../http/errors.js';
import type { ToolCall, ToolDeps } from '../types.js';

export interface ImageSource {
  image_url?: unknown;
  image_base64?: unknown;
}

export interface ReadImage {
  /** `data:image/jpeg;base64,…`, ready for an `image_url` content part. */
  dataUri: string;
  /** The same JPEG's bytes (upright, scaled down, metadata dropped). */
  jpeg: Buffer;
  /** The decoded image's size, before scaling. */
  width: number;
  height: number;
}

export interface ImageReader {
  /**
   * Reads one image input. `field` names it in errors (`image_url`, `a.image_base64`); `deleteMedia` removes a
   * kasir media object once its bytes are read.
   */
  read(
    source: ImageSource,
    call: ToolCall,
    options: {
      field?: string;
      deleteMedia: boolean /** Longest side kept (default VISION_IMAGE_SEND_SIDE). */;
      side?: number;
    },
  ): Promise<ReadImage>;
}

const DATA_URI = /^data:([a-z]+\/[a-z0-9.+-]+)?(;[a-z0-9-]+=[^;,]*)*;base64,/i;

/** Reads a stream into one buffer, failing past `max` bytes. */
async function collect(body: Readable, max: number, field: string): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += (chunk as Buffer).length;
    if (size > max) {
      body.destroy();
      throw invalidInput([{ field, message: `is larger than ${max} bytes` }]);
    }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

function fromBase64(text: string, max: number, field: string): Buffer {
  const payload = text.replace(DATA_URI, '').replace(/\s+/g, '');
  if (!/^[A-Za-z0-9+/_-]*={0,2}$/.test(payload) || payload.length === 0) {
    throw invalidInput([{ field, message: 'is not base64 (or a data: URI holding base64)' }]);
  }
  // Checked on the encoded length first, so an oversized payload is never decoded.
  if (Math.floor((payload.length * 3) / 4) > max + 2) {
    throw invalidInput([{ field, message: `is larger than ${max} bytes` }]);
  }
  return Buffer.from(payload, payload.includes('-') || payload.includes('_') ? 'base64url' : 'base64');
}

async function normalized(
  bytes: Buffer,
  vision: VisionConfig,
  field: string,
  side: number,
): Promise<ReadImage> {
  try {
    // sharp (libvips) loads with the first image read, not at start: most instances read none.
    const { default: sharp } = await import('sharp');
    const image = sharp(bytes, { limitInputPixels: vision.imageMaxPixels, failOn: 'error' });
    const meta = await image.metadata();
    const out = await image
      .rotate()
      .resize({
        width: side,
        height: side,
        fit: 'inside',
        withoutEnlargement: true,
      })
      .flatten({ background: '#ffffff' })
      .jpeg({ quality: 85 })
      .toBuffer();
    return {
      dataUri: `data:image/jpeg;base64,${out.toString('base64')}`,
      jpeg: out,
      width: meta.width,
      height: meta.height,
    };
  } catch (err) {
    const detail =
      err instanceof Error && /pixel limit/i.test(err.message)
        ? `has more than ${vision.imageMaxPixels} pixels`
        : 'is not a readable image';
    throw invalidInput([{ field, message: detail }]);
  }
}

export function createImageReader(deps: ToolDeps): ImageReader {
  const vision = deps.config.vision;
  const fetcher = new SafeFetcher({
    allowedHosts: deps.config.fetch.allowedHosts,
    maxRedirects: deps.config.fetch.maxRedirects,
    timeoutMs: deps.config.fetch.timeoutMs,
  });
  /** https, or plain http to a host FETCH_ALLOWED_HOSTS names (an intranet file server, a test's). */
  const fetchable = (url: string) => {
    if (/^https:\/\//i.test(url)) return true;
    if (!/^http:\/\//i.test(url)) return false;
    const u = URL.parse(url);
    return (
      u !== null && deps.config.fetch.allowedHosts.has(hostPort(bareHost(u.hostname), Number(u.port || 80)))
    );
  };

  async function fromMedia(key: string, field: string, deleteMedia: boolean): Promise<Buffer> {
    const opened = await deps.media.open(key, undefined);
    if (!opened)
      throw invalidInput([{ field, message: 'names a media object that does not exist (or was deleted)' }]);
    try {
      return await collect(opened.body, vision.imageMaxBytes, field);
    } finally {
      if (deleteMedia) await deps.media.delete(key);
    }
  }

  async function fromUrl(url: string, field: string, call: ToolCall): Promise<Buffer> {
    try {
      const got = await fetcher.open(url, {
        maxBytes: vision.imageMaxBytes,
        accept: ['image/*', 'application/octet-stream'],
        signal: call.signal,
      });
      return await collect(got.body, vision.imageMaxBytes, field);
    } catch (err) {
      if (err instanceof FetchFailure)
        throw invalidInput([{ field, message: `could not be fetched: ${err.message}` }]);
      throw err;
    }
  }

  return {
    async read(source, call, options) {
      const prefix = options.field ? `${options.field}.` : '';
      let bytes: Buffer;
      let field: string;
      if (typeof source.image_base64 === 'string') {
        field = `${prefix}image_base64`;
        bytes = fromBase64(source.image_base64, vision.imageMaxBytes, field);
      } else if (typeof source.image_url === 'string') {
        field = `${prefix}image_url`;
        const url = source.image_url;
        // kasir's own link is read from the store by its key, over whichever scheme the deployment serves.
        const key = deps.media.keyOf(url);
        if (key) bytes = await fromMedia(key, field, options.deleteMedia);
        else if (fetchable(url)) bytes = await fromUrl(url, field, call);
        else
          throw invalidInput([
            { field, message: 'could not be fetched: must be https (or a kasir /v1/media link)' },
          ]);
      } else {
        throw invalidInput([{ field: `${prefix}image_url`, message: 'is required (or image_base64)' }]);
      }
      return normalized(bytes, vision, field, options.side ?? vision.imageSendSide);
    },
  };
}
