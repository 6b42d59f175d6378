/** The media store port: bytes in (streamed, size-limited), bytes out (whole or a range). */
import type { Readable } from 'node:stream';

export interface ByteRange {
  start: number;
  /** Inclusive end offset. */
  end: number;
}

export interface StoredObject {
  sizeBytes: number;
  etag: string;
}

export interface MediaBlobStore {
  readonly kind: 'disk' | 's3';
  /** Streams `body` into the store under `key`. Rejects with `MediaTooLargeError` past `maxBytes`, keeping nothing. */
  put(key: string, contentType: string, body: Readable, maxBytes: number): Promise<StoredObject>;
  /**
   * A stream of the object's bytes (or of `range`), or null when the key is unknown. `sizeBytes`, when the
   * caller knows it, lets a store read exactly that much.
   */
  read(key: string, range?: ByteRange, sizeBytes?: number): Promise<Readable | null>;
  delete(key: string): Promise<void>;
  close(): Promise<void>;
}

export class MediaTooLargeError extends Error {
  constructor(readonly maxBytes: number) {
    super(`media exceeds ${maxBytes} bytes`);
    this.name = 'MediaTooLargeError';
  }
}

/** The bytes are not of the type the writer declared (an HTML page sent as an image, say). */
export class MediaTypeMismatchError extends Error {
  constructor(
    readonly declared: string,
    /** What the bytes are, or undefined when they are of no recognised type. */
    readonly detected: string | undefined,
  ) {
    super(`the bytes are ${detected ?? 'of no recognised media type'}, not ${declared}`);
    this.name = 'MediaTypeMismatchError';
  }
}
