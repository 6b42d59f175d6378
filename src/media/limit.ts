/** A pass-through stream that counts bytes, hashes them for the ETag, and fails past a byte limit. */
import { createHash } from 'node:crypto';
import { Transform, type TransformCallback } from 'node:stream';
import { MediaTooLargeError } from './store.js';

export class LimitedHashingStream extends Transform {
  bytes = 0;
  private readonly hash = createHash('sha256');
  constructor(private readonly maxBytes: number) {
    super();
  }
  override _transform(chunk: Buffer, _enc: BufferEncoding, done: TransformCallback): void {
    this.bytes += chunk.length;
    if (this.bytes > this.maxBytes) {
      done(new MediaTooLargeError(this.maxBytes));
      return;
    }
    this.hash.update(chunk);
    done(null, chunk);
  }
  /** A strong ETag of the bytes seen (call after the stream ended). */
  etag(): string {
    return `"${this.hash.digest('hex').slice(0, 32)}"`;
  }
}
