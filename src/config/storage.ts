/**
 * Settings of where kasir keeps things: the data folder, the database (SQLite | PostgreSQL), Redis for shared
 * counters, and the media store (local disk | an S3-compatible bucket).
 */
import path from 'node:path';
import { z } from 'zod';
import { bool, int, optionalString, type SettingsArea, type Values } from './setting.js';

export const storageEnvShape = {
  DATA_DIR: z.string().min(1).default('./data'),
  DATABASE_URL: optionalString,
  REDIS_URL: optionalString,
  MEDIA_MAX_BYTES: int(1).default(40 * 1024 * 1024),
  S3_BUCKET: optionalString,
  S3_ENDPOINT: z.url().optional(),
  S3_REGION: z.string().default('us-east-1'),
  S3_ACCESS_KEY_ID: optionalString,
  S3_SECRET_ACCESS_KEY: optionalString,
  S3_FORCE_PATH_STYLE: bool.default(false),
};

export const storageSettings: SettingsArea = {
  name: 'storage',
  shape: storageEnvShape,
  rows: [
    {
      vars: ['DATA_DIR'],
      default: '`./data`',
      meaning: 'Folder for the SQLite file (`kasir.db`) and the local media store (`media/`).',
    },
    {
      vars: ['DATABASE_URL'],
      default: 'SQLite at `DATA_DIR/kasir.db`',
      meaning:
        "`postgres://…` for PostgreSQL, or `sqlite:<file>`. A PostgreSQL connection not made within the URL's `connect_timeout` (seconds, `?connect_timeout=5`; 10 by default) fails: the start-up exits saying so, and a call that needs a new connection answers an error instead of waiting.",
    },
    {
      vars: ['REDIS_URL'],
      default: '(memory)',
      meaning:
        '`redis://…`: rate-limit counters and cached tool answers, shared by every instance. Redis must answer at start-up (within 10 s, or the start fails saying why); once running, a command unanswered for 1 s fails, and calls go on (rate limits uncounted, the tool cache missed).',
    },
    { vars: ['MEDIA_MAX_BYTES'], default: '`41943040`', meaning: 'Largest upload (40 MB).' },
    {
      vars: ['S3_BUCKET'],
      default: '(local disk)',
      meaning:
        "Store media in this S3-compatible bucket instead of `DATA_DIR/media`. A request to it fails when the connection takes over 5 s or no byte passes for 20 s (after the SDK's three tries): the call answers an error and charges nothing.",
    },
    {
      vars: ['S3_ENDPOINT'],
      default: 'AWS',
      meaning: 'Endpoint of an S3-compatible service (MinIO, Ceph RADOS Gateway, R2, …).',
    },
    { vars: ['S3_REGION'], default: '`us-east-1`', meaning: 'Region of the bucket.' },
    {
      vars: ['S3_ACCESS_KEY_ID', 'S3_SECRET_ACCESS_KEY'],
      default: 'SDK default chain',
      meaning: "Credentials; without them the AWS SDK's usual sources apply.",
    },
    {
      vars: ['S3_FORCE_PATH_STYLE'],
      default: '`false`',
      meaning:
        'Path-style URLs (`<endpoint>/<bucket>/<key>`): needed by most self-hosted S3 servers reached by a host name, whose buckets have no DNS names of their own (an endpoint given as an IP address is always addressed path-style).',
    },
  ],
};

export interface StorageConfig {
  dataDir: string;
  database: { kind: 'sqlite'; file: string } | { kind: 'postgres'; url: string };
  redisUrl: string | undefined;
  mediaMaxBytes: number;
  media:
    | { kind: 'disk'; dir: string }
    | {
        kind: 's3';
        bucket: string;
        endpoint: string | undefined;
        region: string;
        accessKeyId: string | undefined;
        secretAccessKey: string | undefined;
        forcePathStyle: boolean;
      };
}

function parseDatabase(
  url: string | undefined,
  dataDir: string,
  problems: string[],
): StorageConfig['database'] {
  if (!url) return { kind: 'sqlite', file: path.join(dataDir, 'kasir.db') };
  if (/^postgres(ql)?:\/\//.test(url)) return { kind: 'postgres', url };
  if (url.startsWith('sqlite:')) return { kind: 'sqlite', file: url.slice('sqlite:'.length) || ':memory:' };
  problems.push('DATABASE_URL: must start with postgres://, postgresql:// or sqlite:');
  return { kind: 'sqlite', file: ':memory:' };
}

export function parseStorage(e: Values<typeof storageEnvShape>, problems: string[]): StorageConfig {
  return {
    dataDir: e.DATA_DIR,
    database: parseDatabase(e.DATABASE_URL, e.DATA_DIR, problems),
    redisUrl: e.REDIS_URL,
    mediaMaxBytes: e.MEDIA_MAX_BYTES,
    media: e.S3_BUCKET
      ? {
          kind: 's3',
          bucket: e.S3_BUCKET,
          endpoint: e.S3_ENDPOINT,
          region: e.S3_REGION,
          accessKeyId: e.S3_ACCESS_KEY_ID,
          secretAccessKey: e.S3_SECRET_ACCESS_KEY,
          forcePathStyle: e.S3_FORCE_PATH_STYLE,
        }
      : { kind: 'disk', dir: path.join(e.DATA_DIR, 'media') },
  };
}
