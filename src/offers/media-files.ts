/**
 * File inputs of media models: which fields hold files (the schema's `fileRef`), and what each value becomes for
 * the adapter. A value is a public http(s) URL, a data URI, raw base64 in a `<field>_base64` sibling, or one of
 * kasir's own `/v1/media/<key>` links (read from the store, never fetched over HTTP). Public URLs are checked by
 * the safe fetcher's address rule and, for adapters that send bytes, fetched through it. Every refusal is a 400
 * naming the field.
 */
import { buffer } from 'node:stream/consumers';
import { fileTypeFromBuffer } from 'file-type';
import type { ModelEntry } from '../catalog/types.js';
import { FetchFailure } from '../fetch/errors.js';
import type { SafeFetcher } from '../fetch/safe-fetch.js';
import { typeAccepted } from '../fetch/safe-fetch.js';
import { ApiError, invalidInput } from '../http/errors.js';
import type { Media } from '../media/service.js';
import type { CallSignal } from '../providers/call-signal.js';
import type { FileValue } from '../providers/media/types.js';

export interface FileInputDeps {
  media: Media;
  fetcher: SafeFetcher;
  publicBaseUrl: string;
  /** The most a file input may weigh. */
  maxBytes: number;
}

export interface FileField {
  field: string;
  /** An array of files (`image_urls`, `ref_image_urls`). */
  array: boolean;
}

/** The file fields of a model's input schema. */
export function fileFields(entry: ModelEntry): FileField[] {
  const props = (entry.input.properties ?? {}) as Record<string, Record<string, unknown>>;
  const fields: FileField[] = [];
  for (const [field, schema] of Object.entries(props)) {
    const items = schema.items as Record<string, unknown> | undefined;
    if (schema.fileRef === true) fields.push({ field, array: schema.type === 'array' });
    else if (items?.fileRef === true) fields.push({ field, array: true });
  }
  return fields;
}

/** The content types a file field takes, by the model's category and the field's name. */
export function acceptedTypes(entry: ModelEntry, field: string): string[] {
  if (/audio|file/.test(field) || entry.category === 'speech-to-text') return ['audio/*', 'video/*'];
  if (/video/.test(field)) return ['video/*'];
  return ['image/*'];
}

const bad = (field: string, message: string) => invalidInput([{ field, message }]);

export class FileInputs {
  constructor(private readonly deps: FileInputDeps) {}

  /**
   * Resolves every file input of the validated `input`. `mode` is the adapter's:
   * `url` passes checked public URLs on, `bytes` fetches them.
   */
  async resolve(
    entry: ModelEntry,
    input: Record<string, unknown>,
    mode: 'url' | 'bytes',
    signal: CallSignal,
    maxBytes = this.deps.maxBytes,
  ): Promise<Record<string, FileValue | FileValue[]>> {
    const files: Record<string, FileValue | FileValue[]> = {};
    for (const { field, array } of fileFields(entry)) {
      const value = input[field];
      if (value === undefined || value === null) continue;
      const accept = acceptedTypes(entry, field);
      const one = (v: unknown, name: string) => this.one(v, name, accept, mode, signal, maxBytes);
      if (array) {
        if (!Array.isArray(value)) throw bad(field, 'must be an array of file URLs or data URIs');
        files[field] = await Promise.all(value.map((v, i) => one(v, `${field}[${i}]`)));
      } else {
        files[field] = await one(value, field);
      }
    }
    return files;
  }

  private async one(
    value: unknown,
    field: string,
    accept: string[],
    mode: 'url' | 'bytes',
    signal: CallSignal,
    maxBytes: number,
  ): Promise<FileValue> {
    if (typeof value !== 'string' || value === '') throw bad(field, 'must be a file URL or a data URI');
    if (value.startsWith('data:')) return this.dataUri(value, field, accept, maxBytes);
    const key = this.deps.media.keyOf(value);
    if (key) return this.stored(key, field, accept, maxBytes);
    if (!/^https?:\/\//i.test(value))
      throw bad(field, 'must be an http(s) URL, a data URI or a /v1/media link');
    try {
      if (mode === 'url') {
        const url = new URL(value);
        const port = Number(url.port || (url.protocol === 'https:' ? 443 : 80));
        const verdict = await this.deps.fetcher.check(url.hostname, port);
        if (!verdict.allowed) throw new FetchFailure('refused', verdict.reason);
        return { kind: 'url', url: url.href };
      }
      const got = await this.deps.fetcher.fetchBuffer(value, { maxBytes, accept, signal });
      return { kind: 'bytes', bytes: got.bytes, contentType: got.contentType };
    } catch (err) {
      if (err instanceof FetchFailure) throw bad(field, `cannot be fetched: ${err.message}`);
      if (err instanceof TypeError) throw bad(field, 'is not a valid URL');
      throw err;
    }
  }

  /** A data URI, decoded by the platform's fetch (data: URLs need no network). */
  private async dataUri(
    value: string,
    field: string,
    accept: string[],
    maxBytes: number,
  ): Promise<FileValue> {
    let res: Response;
    try {
      res = await fetch(value);
    } catch {
      throw bad(field, 'is not a valid data URI');
    }
    const contentType = (res.headers.get('content-type') ?? '').split(';', 1)[0]?.trim().toLowerCase() ?? '';
    if (!typeAccepted(contentType, accept))
      throw bad(field, `has content type ${contentType || '(none)'}; expected ${accept.join(', ')}`);
    const bytes = Buffer.from(await res.arrayBuffer());
    if (bytes.length === 0) throw bad(field, 'is empty');
    if (bytes.length > maxBytes) throw bad(field, `is larger than ${maxBytes} bytes`);
    return { kind: 'bytes', bytes, contentType };
  }

  /** One of kasir's own media objects, read from the store. */
  private async stored(key: string, field: string, accept: string[], maxBytes: number): Promise<FileValue> {
    const meta = await this.deps.media.head(key);
    if (!meta)
      throw new ApiError('invalid_input', `${field}: no such media ${key}`, [
        { field, message: 'no such media' },
      ]);
    if (!typeAccepted(meta.content_type, accept))
      throw bad(field, `is ${meta.content_type}; expected ${accept.join(', ')}`);
    if (meta.size_bytes > maxBytes) throw bad(field, `is larger than ${maxBytes} bytes`);
    const opened = await this.deps.media.open(key, undefined);
    if (!opened) throw bad(field, 'no such media');
    return { kind: 'bytes', bytes: await buffer(opened.body), contentType: meta.content_type };
  }
}

/** The generic names a capability route takes for a model's main file (the spec's audio_url / audio_base64, …). */
const GENERIC_FILE_NAMES = ['audio', 'image', 'video'];

/**
 * Rewrites inline files into the fields the model's schema knows, before validation: `<field>_base64` (raw
 * base64, its type read from the bytes' signature by file-type) becomes a data URI in `<field>`, and the generic
 * `audio_url` / `audio_base64` (image_…, video_…) fill the model's first file field of that kind when it has no
 * field of that name. A base64 value that is not a recognised file is a 400 naming its field.
 */
export async function inlineFileAliases(entry: ModelEntry, body: Record<string, unknown>): Promise<void> {
  const fields = fileFields(entry);
  const names = new Set(fields.map((f) => f.field));
  for (const kind of GENERIC_FILE_NAMES) {
    const target = fields.find(
      (f) => !f.array && acceptedTypes(entry, f.field).some((t) => t.startsWith(kind)),
    );
    if (!target) continue;
    for (const suffix of ['_url', '_base64']) {
      const alias = `${kind}${suffix}`;
      if (names.has(alias) || body[alias] === undefined || body[target.field] !== undefined) continue;
      const to = suffix === '_url' ? target.field : `${target.field}_base64`;
      if (to === alias) continue;
      body[to] = body[alias];
      delete body[alias];
    }
  }
  for (const { field } of fields) {
    const sibling = `${field}_base64`;
    const inline = body[sibling];
    if (inline === undefined || names.has(sibling)) continue;
    delete body[sibling];
    if (body[field] !== undefined) throw bad(sibling, `give ${field} or ${sibling}, not both`);
    if (typeof inline !== 'string' || !/^[A-Za-z0-9+/=\s_-]+$/.test(inline))
      throw bad(sibling, 'is not base64');
    const bytes = Buffer.from(inline, 'base64');
    const type = (await fileTypeFromBuffer(bytes))?.mime;
    const accept = acceptedTypes(entry, field);
    if (!type || !typeAccepted(type, accept))
      throw bad(sibling, `is not a recognised ${accept.map((a) => a.replace('/*', '')).join(' or ')} file`);
    body[field] = `data:${type};base64,${bytes.toString('base64')}`;
  }
}
