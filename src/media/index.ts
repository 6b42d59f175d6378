/** Opens the configured media blob store (local folder or S3-compatible bucket). */
import type { Config } from '../config.js';
import { createDiskStore } from './disk.js';
import { createS3Store } from './s3.js';
import type { MediaBlobStore } from './store.js';

export function openBlobStore(settings: Config['media']): Promise<MediaBlobStore> {
  return settings.kind === 's3' ? Promise.resolve(createS3Store(settings)) : createDiskStore(settings.dir);
}
