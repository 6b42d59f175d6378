/**
 * A caller's image URL (a meme's image, a card's background), read through the safe fetcher: private addresses
 * refused, the size capped, the type checked; then its header decoded (image-size) so a non-image or a huge one is
 * refused before it is drawn. Failures are named by the input field: the caller's fault is a 400, the remote
 * server's a 502 or 504 — either way nothing is charged.
 */
import { imageSize } from 'image-size';
import { FetchFailure } from '../fetch/errors.js';
import type { SafeFetcher } from '../fetch/safe-fetch.js';
import type { CallSignal } from '../http/call-signal.js';
import { invalidInput } from '../http/errors.js';
import { UpstreamError } from '../http/upstream-error.js';

/** Formats resvg draws (WebP is not among them in the resvg-js release used). */
const IMAGE_TYPES = ['image/png', 'image/jpeg', 'image/gif'];
/** The most pixels a drawn image may have (decoding is done in memory). */
const MAX_PIXELS = 40_000_000;

export interface RemoteImage {
  /** A data: URI satori can embed. */
  dataUri: string;
  width: number;
  height: number;
}

/** Maps a fetch failure on `field` to the caller's answer. */
export function fetchError(err: unknown, field: string): unknown {
  if (!(err instanceof FetchFailure)) return err;
  switch (err.kind) {
    case 'refused':
    case 'bad_type':
    case 'too_large':
      return invalidInput([{ field, message: err.message }]);
    case 'timeout':
      return new UpstreamError('timeout', `${field}: ${err.message}`);
    default:
      return new UpstreamError('upstream', `${field}: ${err.message}`);
  }
}

export async function fetchImage(
  fetcher: SafeFetcher,
  url: string,
  field: string,
  maxBytes: number,
  signal: CallSignal,
): Promise<RemoteImage> {
  let got: { contentType: string; bytes: Buffer };
  try {
    got = await fetcher.fetchBuffer(url, { maxBytes, accept: IMAGE_TYPES, signal });
  } catch (err) {
    throw fetchError(err, field);
  }
  let size: { width?: number; height?: number; type?: string };
  try {
    size = imageSize(got.bytes);
  } catch {
    size = {};
  }
  // The bytes decide, not the declared type.
  const kind = size.type === 'jpg' ? 'jpeg' : size.type;
  if (kind !== 'png' && kind !== 'jpeg' && kind !== 'gif')
    throw invalidInput([{ field, message: 'the file is not a PNG, JPEG or GIF image' }]);
  const { width = 0, height = 0 } = size;
  if (width < 1 || height < 1) throw invalidInput([{ field, message: 'the image has no size' }]);
  if (width * height > MAX_PIXELS)
    throw invalidInput([{ field, message: `the image is ${width}×${height}; at most ${MAX_PIXELS} pixels` }]);
  return { dataUri: `data:image/${kind};base64,${got.bytes.toString('base64')}`, width, height };
}
