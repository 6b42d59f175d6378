/** Opens the configured media blob store (local folder or S3-compatible bucket). */
import type { Config } from '../config/load.js';
import { createDiskStore } from './disk.js';
import type { MediaBlobStore } from './store.js';

export async function openBlobStore(settings: Config['media']): Promise<MediaBlobStore> {
  if (settings.kind !== 's3') return createDiskStore(settings.dir);
  // The AWS SDK (over 10 MB resident once loaded) is imported only when a bucket is configured.
  const { createS3Store } = await import('./s3.js');
  return createS3Store(settings);
}
