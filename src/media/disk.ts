/** Media bytes in a local folder: written to a temporary file, renamed into place when complete. */
import { mkdir, open, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { LimitedHashingStream } from './limit.js';
import type { MediaBlobStore } from './store.js';

export async function createDiskStore(dir: string): Promise<MediaBlobStore> {
  const root = path.resolve(dir);
  const tmp = path.join(root, '.tmp');
  await mkdir(tmp, { recursive: true });
  // Keys are validated before they get here; the shard folder keeps directories small.
  const fileOf = (key: string) => path.join(root, key.slice(0, 2), key);

  return {
    kind: 'disk',
    async put(key, _contentType, body, maxBytes) {
      const partial = path.join(tmp, `${key}.${process.pid}.part`);
      const counter = new LimitedHashingStream(maxBytes);
      // The file is opened before the pipeline starts: a stream that opens it lazily could create it
      // after a failed upload's clean-up had already removed it.
      const file = await open(partial, 'w');
      try {
        await pipeline(body, counter, file.createWriteStream());
        const target = fileOf(key);
        await mkdir(path.dirname(target), { recursive: true });
        await rename(partial, target);
      } catch (err) {
        await rm(partial, { force: true });
        throw err;
      }
      return { sizeBytes: counter.bytes, etag: counter.etag() };
    },
    async read(key, range) {
      // Opening is the existence check (one file-system round trip fewer than stat + open).
      const handle = await open(fileOf(key), 'r').catch(() => null);
      if (!handle) return null;
      // Larger reads than the 64 KB default: fewer syscalls and socket writes per object.
      const highWaterMark = 256 * 1024;
      return handle.createReadStream({
        highWaterMark,
        autoClose: true,
        ...(range ? { start: range.start, end: range.end } : {}),
      }) as Readable;
    },
    async delete(key) {
      await rm(fileOf(key), { force: true });
    },
    async close() {},
  };
}
