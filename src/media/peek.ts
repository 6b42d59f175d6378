/** Reads the first bytes of a stream without consuming them: the returned stream still yields every byte. */
import { Readable } from 'node:stream';

/**
 * Waits for `size` bytes (or the end) of `body`, then hands them back with a stream of the whole body: the same
 * stream with the bytes put back (`unshift`), or, when the body ended first, a stream of what it held.
 */
export function peek(body: Readable, size: number): Promise<{ head: Buffer; body: Readable }> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let length = 0;
    const stop = () => {
      body.off('data', onData);
      body.off('end', onEnd);
      body.off('error', onError);
    };
    const onData = (chunk: Buffer | Uint8Array | string) => {
      const bytes =
        typeof chunk === 'string'
          ? Buffer.from(chunk)
          : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
      chunks.push(bytes);
      length += bytes.length;
      if (length < size) return;
      body.pause();
      stop();
      const head = Buffer.concat(chunks);
      body.unshift(head);
      resolve({ head, body });
    };
    const onEnd = () => {
      stop();
      const head = Buffer.concat(chunks);
      resolve({ head, body: Readable.from(head.length ? [head] : []) });
    };
    const onError = (err: Error) => {
      stop();
      reject(err);
    };
    body.on('data', onData);
    body.on('end', onEnd);
    body.on('error', onError);
  });
}
