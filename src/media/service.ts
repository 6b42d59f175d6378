/** Media objects: bytes in the blob store, metadata in the database, links under the public base URL. */
import { Readable } from 'node:stream';
import type { Db } from '../store/db.js';
import type { MediaObjectTable } from '../store/schema.js';
import { isMediaKey, newMediaKey } from './keys.js';
import { peek } from './peek.js';
import { detectMediaType, isSignatureless, SNIFF_BYTES, sameMediaType } from './sniff.js';
import { type ByteRange, type MediaBlobStore, MediaTypeMismatchError } from './store.js';

export interface MediaObject {
  url: string;
  contentType: string;
  sizeBytes: number;
}

export interface OpenedMedia {
  meta: MediaObjectTable;
  /** The requested range, or undefined for the whole object. */
  range: ByteRange | undefined;
  body: Readable;
}

export type RangeResult = { kind: 'whole' } | { kind: 'range'; range: ByteRange } | { kind: 'unsatisfiable' };

/**
 * Who wrote the bytes, which decides how their real type is held against the declared one: a caller's upload must
 * be what its Content-Type says; a provider's result (or kasir's own rendering) is stored under the type its bytes
 * show when they show a media type, and refused only when they are markup or script it did not declare.
 */
export type MediaSource = 'caller' | 'provider';

export interface Media {
  readonly maxBytes: number;
  urlOf(key: string): string;
  /**
   * The key of one of kasir's own media links (under PUBLIC_BASE_URL or MEDIA_PUBLIC_BASE_URL, over http or
   * https, query and fragment ignored), or null.
   */
  keyOf(url: string): string | null;
  /**
   * Stores a stream (rejects with MediaTooLargeError past the limit, keeping nothing; with MediaTypeMismatchError
   * when the bytes are not what `contentType` says, see MediaSource). `maxBytes` overrides the upload limit (a
   * provider's long video is re-hosted under MEDIA_RESULT_MAX_BYTES).
   */
  save(
    contentType: string,
    body: Readable,
    maxBytes?: number,
    source?: MediaSource,
  ): Promise<MediaObject & { key: string }>;
  head(key: string): Promise<MediaObjectTable | null>;
  open(key: string, range: ByteRange | undefined): Promise<OpenedMedia | null>;
  delete(key: string): Promise<void>;
}

export function createMedia(deps: {
  db: Db;
  blobs: MediaBlobStore;
  publicBaseUrl: string;
  /** MEDIA_PUBLIC_BASE_URL: a separate origin for media links (default: the public base URL). */
  mediaBaseUrl?: string | undefined;
  maxBytes: number;
}): Media {
  const { db, blobs } = deps;
  const linkBase = deps.mediaBaseUrl ?? deps.publicBaseUrl;
  const urlOf = (key: string) => `${linkBase}/v1/media/${key}`;
  // Links are known by host and path: an http deployment's link is the same object over https, and back.
  const schemeless = (url: string) => url.replace(/^https?:\/\//i, '').toLowerCase();
  const prefixes = [...new Set([linkBase, deps.publicBaseUrl])].map((b) => `${schemeless(b)}/v1/media/`);
  // Objects never change once stored (a key is never reused), so their metadata can be kept in memory.
  const known = new Map<string, MediaObjectTable>();
  const head = async (key: string) => {
    const hit = known.get(key);
    if (hit) return hit;
    const row = await db.kysely
      .selectFrom('media_objects')
      .selectAll()
      .where('key', '=', key)
      .executeTakeFirst();
    if (!row) return null;
    if (known.size >= 10_000) known.clear();
    known.set(key, row);
    return row;
  };

  return {
    maxBytes: deps.maxBytes,
    urlOf,
    keyOf(url) {
      if (!/^https?:\/\//i.test(url)) return null;
      const bare = url.replace(/^https?:\/\//i, '');
      const prefix = prefixes.find((p) => bare.toLowerCase().startsWith(p));
      if (!prefix) return null;
      const key = bare.slice(prefix.length).split(/[?#]/, 1)[0] ?? '';
      return isMediaKey(key) ? key : null;
    },
    async save(declared, input, maxBytes = deps.maxBytes, source = 'provider') {
      const { head, body } = await peek(input, SNIFF_BYTES);
      const contentType = head.length ? await verifiedType(declared, head, source) : declared;
      const key = newMediaKey(contentType);
      const stored = await blobs.put(key, contentType, body, maxBytes);
      try {
        await db.kysely
          .insertInto('media_objects')
          .values({
            key,
            content_type: contentType,
            size_bytes: stored.sizeBytes,
            etag: stored.etag,
            created_at: new Date().toISOString(),
          })
          .execute();
      } catch (err) {
        await blobs.delete(key).catch(() => {});
        throw err;
      }
      return { key, url: urlOf(key), contentType, sizeBytes: stored.sizeBytes };
    },
    head,
    async open(key, range) {
      const meta = await head(key);
      if (!meta) return null;
      const body = await blobs.read(key, range, meta.size_bytes);
      return body ? { meta, range, body } : null;
    },
    async delete(key) {
      known.delete(key);
      await blobs.delete(key);
      await db.kysely.deleteFrom('media_objects').where('key', '=', key).execute();
    },
  };
}

/** The type to store bytes starting with `head` under, or MediaTypeMismatchError (see MediaSource). */
async function verifiedType(declared: string, head: Buffer, source: MediaSource): Promise<string> {
  const detected = await detectMediaType(head);
  if (detected && sameMediaType(declared, detected)) return declared;
  if (source === 'caller') {
    if (!detected && isSignatureless(declared)) return declared;
    throw new MediaTypeMismatchError(declared, detected);
  }
  if (!detected || detected === 'text/plain') return declared;
  // Raw audio (PCM) has no signature, so its first bytes can spell a format's few-byte sync word by chance.
  const isMedia = /^(image|video|audio)\//.test(detected) && detected !== 'image/svg+xml';
  if (isMedia && declared.startsWith('audio/') && isSignatureless(declared)) return declared;
  if (isMedia) return detected;
  throw new MediaTypeMismatchError(declared, detected);
}

/** Saves bytes already in memory (a generated image, say) as a media object. */
export function saveBuffer(media: Media, contentType: string, bytes: Uint8Array) {
  return media.save(contentType, Readable.from([Buffer.from(bytes)]));
}

/**
 * Interprets a `Range` header against an object size (RFC 9110 §14.1.2): one range only, `bytes=a-b`,
 * `bytes=a-` or `bytes=-n`. Several ranges are answered with the whole object, which the RFC allows.
 */
export function parseRange(header: string | undefined, size: number): RangeResult {
  if (!header) return { kind: 'whole' };
  const m = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!m) return { kind: 'whole' };
  const [, a, b] = m;
  if (a === '' && b === '') return { kind: 'whole' };
  let start: number;
  let end: number;
  if (a === '') {
    const suffix = Number(b);
    if (suffix === 0) return { kind: 'unsatisfiable' };
    start = Math.max(0, size - suffix);
    end = size - 1;
  } else {
    start = Number(a);
    end = b === '' ? size - 1 : Math.min(Number(b), size - 1);
    if (b !== '' && Number(b) < start) return { kind: 'whole' };
  }
  if (start >= size || size === 0) return { kind: 'unsatisfiable' };
  return { kind: 'range', range: { start, end } };
}
