/** Media bytes in an S3-compatible bucket (AWS S3, MinIO, R2, …): multipart upload of the stream, ranged reads. */

import type { Readable } from 'node:stream';
import { DeleteObjectCommand, GetObjectCommand, NoSuchKey, S3Client } from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import type { Config } from '../config/load.js';
import { LimitedHashingStream } from './limit.js';
import type { MediaBlobStore } from './store.js';

type S3Settings = Extract<Config['media'], { kind: 's3' }>;

/**
 * How long a connection to the store may take, and how long a request may go without a byte either way. The SDK
 * waits without end by default: a store that stalled held a media download, and a paid media call re-hosting its
 * result, for as long as the socket stayed open. Past these the request fails (the SDK retries it, as it does any
 * network error) and the call answers an error, charging nothing.
 */
const S3_TIMEOUTS = { connectionMs: 5_000, idleMs: 20_000 };

export function createS3Store(settings: S3Settings, timeouts = S3_TIMEOUTS): MediaBlobStore {
  const client = new S3Client({
    requestHandler: { connectionTimeout: timeouts.connectionMs, socketTimeout: timeouts.idleMs },
    region: settings.region,
    forcePathStyle: settings.forcePathStyle,
    ...(settings.endpoint ? { endpoint: settings.endpoint } : {}),
    ...(settings.accessKeyId && settings.secretAccessKey
      ? { credentials: { accessKeyId: settings.accessKeyId, secretAccessKey: settings.secretAccessKey } }
      : {}),
  });
  const Bucket = settings.bucket;

  return {
    kind: 's3',
    async put(key, contentType, body, maxBytes) {
      const counter = new LimitedHashingStream(maxBytes);
      body.on('error', (err) => counter.destroy(err));
      body.pipe(counter);
      // Upload sends 5 MB parts as they fill, so memory stays bounded whatever the object size.
      const upload = new Upload({
        client,
        params: { Bucket, Key: key, Body: counter, ContentType: contentType },
      });
      counter.on('error', () => void upload.abort().catch(() => {}));
      try {
        await upload.done();
      } catch (err) {
        // A failed multipart upload is aborted by Upload; a single-part one never landed. Either way nothing is kept.
        await client.send(new DeleteObjectCommand({ Bucket, Key: key })).catch(() => {});
        throw counter.errored ?? err;
      }
      return { sizeBytes: counter.bytes, etag: counter.etag() };
    },
    async read(key, range) {
      try {
        const out = await client.send(
          new GetObjectCommand({
            Bucket,
            Key: key,
            ...(range ? { Range: `bytes=${range.start}-${range.end}` } : {}),
          }),
        );
        return (out.Body as Readable | undefined) ?? null;
      } catch (err) {
        if (err instanceof NoSuchKey || (err as { name?: string }).name === 'NoSuchKey') return null;
        throw err;
      }
    },
    async delete(key) {
      await client.send(new DeleteObjectCommand({ Bucket, Key: key }));
    },
    async close() {
      client.destroy();
    },
  };
}
