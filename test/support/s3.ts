// The S3-compatible bucket that media tests store bytes in: on the real server CI runs (Ceph's RADOS Gateway, started
// by `.ci/s3-server`, at TEST_S3_URL) whenever it answers — always with CI=true, where it is required — and on a local
// s3rver emulator otherwise. Every caller gets a bucket of its own, emptied and removed on close.
import {
  AbortMultipartUploadCommand,
  CreateBucketCommand,
  DeleteBucketCommand,
  DeleteObjectCommand,
  ListMultipartUploadsCommand,
  ListObjectsV2Command,
  S3Client,
} from '@aws-sdk/client-s3';
import { startFakeS3 } from '../fakes/s3.js';
import { DB_TARGETS, type DbTarget } from './app.js';
import { S3_ACCESS_KEY, S3_SECRET_KEY, S3_URL, serviceAvailable } from './services.js';

/** Which server the tests' `s3` media store talks to. */
export const S3_SERVER: 'radosgw' | 's3rver' = (await serviceAvailable('s3')) ? 'radosgw' : 's3rver';

export type MediaStoreTarget = 'disk' | 's3';
export const MEDIA_STORES: MediaStoreTarget[] = ['disk', 's3'];

/** How a test names its media store: `disk`, or `S3 on radosgw` / `S3 on s3rver`. */
export const storeLabel = (store: MediaStoreTarget): string =>
  store === 's3' ? `S3 on ${S3_SERVER}` : 'disk';

/**
 * Database × media store (with its label) for the heavier end-to-end suites: the disk on every database, S3 on the
 * last one (PostgreSQL whenever it is up, as in CI: the database that a deployment storing media in S3 runs on).
 */
export const DB_STORE_TARGETS: Array<[DbTarget, string, MediaStoreTarget]> = [
  ...DB_TARGETS.map((db): [DbTarget, string, MediaStoreTarget] => [db, storeLabel('disk'), 'disk']),
  [DB_TARGETS.at(-1) ?? 'sqlite', storeLabel('s3'), 's3'],
];

export interface TestBucket {
  server: 'radosgw' | 's3rver';
  endpoint: string;
  bucket: string;
  /** The media settings to hand to kasir (as environment variables). */
  env: Record<string, string>;
  /** A client signed as the test user (path-style, as a server on an IP address needs). */
  client: S3Client;
  /** The keys of the objects in the bucket, and of the multipart uploads begun in it and neither completed nor aborted. */
  contents(): Promise<{ objects: string[]; uploads: string[] }>;
  close(): Promise<void>;
}

function clientFor(endpoint: string, accessKeyId: string, secretAccessKey: string): S3Client {
  return new S3Client({
    region: 'us-east-1',
    endpoint,
    forcePathStyle: true,
    credentials: { accessKeyId, secretAccessKey },
  });
}

async function contentsOf(client: S3Client, Bucket: string, withUploads: boolean) {
  const objects: string[] = [];
  let token: string | undefined;
  do {
    const page = await client.send(new ListObjectsV2Command({ Bucket, ContinuationToken: token }));
    objects.push(...(page.Contents ?? []).map((o) => String(o.Key)));
    token = page.IsTruncated ? page.NextContinuationToken : undefined;
  } while (token);
  const uploads = withUploads
    ? ((await client.send(new ListMultipartUploadsCommand({ Bucket }))).Uploads ?? []).map((u) => ({
        key: String(u.Key),
        id: String(u.UploadId),
      }))
    : [];
  return { objects, uploads };
}

/** A fresh, empty bucket on the tests' S3-compatible server. */
export async function startTestBucket(): Promise<TestBucket> {
  const bucket = `kasir-t-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
  if (S3_SERVER === 's3rver') {
    const fake = await startFakeS3(bucket);
    const client = clientFor(
      fake.endpoint,
      fake.env.S3_ACCESS_KEY_ID ?? '',
      fake.env.S3_SECRET_ACCESS_KEY ?? '',
    );
    return {
      server: 's3rver',
      endpoint: fake.endpoint,
      bucket,
      env: fake.env,
      client,
      // s3rver keeps no list of open multipart uploads.
      contents: async () => {
        const { objects } = await contentsOf(client, bucket, false);
        return { objects, uploads: [] };
      },
      async close() {
        client.destroy();
        await fake.close();
      },
    };
  }
  const client = clientFor(S3_URL, S3_ACCESS_KEY, S3_SECRET_KEY);
  await client.send(new CreateBucketCommand({ Bucket: bucket }));
  return {
    server: 'radosgw',
    endpoint: S3_URL,
    bucket,
    env: {
      S3_BUCKET: bucket,
      S3_ENDPOINT: S3_URL,
      S3_REGION: 'us-east-1',
      S3_ACCESS_KEY_ID: S3_ACCESS_KEY,
      S3_SECRET_ACCESS_KEY: S3_SECRET_KEY,
      S3_FORCE_PATH_STYLE: 'true',
    },
    client,
    async contents() {
      const { objects, uploads } = await contentsOf(client, bucket, true);
      return { objects, uploads: uploads.map((u) => u.key) };
    },
    async close() {
      const { objects, uploads } = await contentsOf(client, bucket, true);
      for (const u of uploads) {
        await client.send(new AbortMultipartUploadCommand({ Bucket: bucket, Key: u.key, UploadId: u.id }));
      }
      for (const Key of objects) await client.send(new DeleteObjectCommand({ Bucket: bucket, Key }));
      await client.send(new DeleteBucketCommand({ Bucket: bucket }));
      client.destroy();
    },
  };
}

/** The media settings for `store`: none for the disk, a fresh bucket for S3 (removed by `close`). */
export async function openMediaStore(
  store: MediaStoreTarget,
): Promise<{ env: Record<string, string>; bucket?: TestBucket; close(): Promise<void> }> {
  if (store === 'disk') return { env: {}, close: async () => {} };
  const bucket = await startTestBucket();
  return { env: bucket.env, bucket, close: () => bucket.close() };
}
