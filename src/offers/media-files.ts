/**
 * File inputs of media models: which fields hold files (the schema's `fileRef`), and what each value becomes for
 * the adapter. A value is a public http(s) URL, a data URI, raw base64 in a `<field>_base64` sibling, or one of
 * kasir's own `/v1/media/<key>` links (read from the store, never fetched over HTTP). Public URLs are checked by
 * the safe fetcher's address rule and, for adapters that send bytes, fetched through it. Every refusal is a 400
 * naming the field.
 */
import { buffer } from 'node:stream/consumers';
import { fileTypeFromBuffer } from 'file-type';
import { callerField, recordCallerName } from '../catalog/caller-names.js';
import type { ModelEntry } from '../catalog/types.js';
import { FetchFailure } from '../fetch/errors.js';
import type { SafeFetcher } from '../fetch/safe-fetch.js';
import { typeAccepted } from '../fetch/safe-fetch.js';
import type { CallSignal } from '../http/call-signal.js';
import { ApiError, invalidInput } from '../http/errors.js';
import type { Media } from '../media/service.js';
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
    /** The caller's input, whose field names errors use (see caller-names.ts). */
    sent: object = input,
  ): Promise<Record<string, FileValue | FileValue[]>> {
    const files: Record<string, FileValue | FileValue[]> = {};
    for (const { field: name, array } of fileFields(entry)) {
      const value = input[name];
      const field = callerField(sent, name);
      if (value === undefined || value === null) continue;
      const accept = acceptedTypes(entry, name);
      const one = (v: unknown, shown: string) => this.one(v, shown, accept, mode, signal, maxBytes);
      if (array) {
        if (!Array.isArray(value)) throw bad(field, 'must be an array of file URLs or data URIs');
        files[name] = await Promise.all(value.map((v, i) => one(v, `${field}[${i}]`)));
      } else {
        files[name] = await one(value, field);
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

/**
 * The input names the spec gives media models, by role; a role fills the model's own field for it. Single-file
 * roles take one value; `references` fills the model's list of images (or its one image, given a list of one).
 */
const SPEC_NAMES: Array<{ role: Role; names: string[] }> = [
  { role: 'image', names: ['image', 'image_url', 'start_image', 'input_image', 'image_input'] },
  { role: 'end_image', names: ['end_image', 'last_frame_image'] },
  { role: 'references', names: ['images', 'input_images', 'reference_images'] },
  { role: 'video', names: ['video', 'video_uri', 'video_url'] },
  { role: 'audio', names: ['audio_url', 'audio', 'file', 'url'] },
  { role: 'text', names: ['text'] },
];
/** The spec's inline names (`image_base64`, …): raw base64 for the role's field. */
const BASE64_NAMES: Array<{ role: Role; name: string }> = [
  { role: 'image', name: 'image_base64' },
  { role: 'video', name: 'video_base64' },
  { role: 'audio', name: 'audio_base64' },
];
type Role = 'image' | 'end_image' | 'references' | 'video' | 'audio' | 'text';

/** The model's own field for a role, if it has one. */
function targetOf(entry: ModelEntry, role: Role): FileField | undefined {
  if (role === 'text') {
    if (entry.category !== 'text-to-speech') return undefined;
    const props = (entry.input.properties ?? {}) as Record<string, unknown>;
    const field = ['text', 'input', 'prompt'].find((f) => props[f] !== undefined);
    return field ? { field, array: false } : undefined;
  }
  const fields = fileFields(entry);
  const kind = (f: FileField, k: string) => acceptedTypes(entry, f.field)[0]?.startsWith(k) === true;
  const single = (k: string, name: (n: string) => boolean) =>
    fields.find((f) => !f.array && kind(f, k) && name(f.field));
  // A model's main image; a reference image only when it is the model's one image input (Sora's input_reference).
  if (role === 'image')
    return (
      single('image', (n) => !/end|last|tail|mask|ref/i.test(n)) ??
      single('image', (n) => !/end|last|tail|mask/i.test(n))
    );
  if (role === 'end_image') return single('image', (n) => /end|last|tail/i.test(n));
  if (role === 'video') return single('video', (n) => !/mask/i.test(n));
  if (role === 'audio') return single('audio', (n) => !/cloud/i.test(n));
  return fields.find((f) => f.array && kind(f, 'image')) ?? targetOf(entry, 'image');
}

/** Moves `body[from]` into `body[to]` (a list of one into a single field, one value into a list), noting the name. */
function move(body: Record<string, unknown>, from: string, to: FileField): void {
  if (body[to.field] !== undefined) throw bad(from, `give ${from} or ${to.field}, not both`);
  let value = body[from];
  if (to.array && typeof value === 'string') value = [value];
  else if (!to.array && Array.isArray(value)) {
    if (value.length !== 1) throw bad(from, `takes one file on this model (its ${to.field})`);
    value = value[0];
  }
  delete body[from];
  body[to.field] = value;
  recordCallerName(body, to.field, from);
}

/** Raw base64 (its type read from the bytes' signature by file-type) as a data URI in `field`; 400 names `name`. */
async function inlineBase64(entry: ModelEntry, body: Record<string, unknown>, name: string, field: string) {
  const inline = body[name];
  delete body[name];
  if (body[field] !== undefined) throw bad(name, `give ${field} or ${name}, not both`);
  if (typeof inline !== 'string' || !/^[A-Za-z0-9+/=\s_-]+$/.test(inline)) throw bad(name, 'is not base64');
  const bytes = Buffer.from(inline, 'base64');
  const type = (await fileTypeFromBuffer(bytes))?.mime;
  const accept = acceptedTypes(entry, field);
  if (!type || !typeAccepted(type, accept))
    throw bad(name, `is not a recognised ${accept.map((a) => a.replace('/*', '')).join(' or ')} file`);
  body[field] = `data:${type};base64,${bytes.toString('base64')}`;
  recordCallerName(body, field, name);
}

/**
 * Rewrites the spec's input names into the fields the model's schema knows, before validation, remembering what
 * the caller sent (see caller-names.ts) so errors name it: the spec's names for a role (`image`, `video_uri`,
 * `audio_url`, `text`, …) fill the model's field for that role when the model has no field of that name;
 * `image_base64` / `video_base64` / `audio_base64` and `<field>_base64` (raw base64, typed by file-type) become a
 * data URI in the field. A base64 value that is not a recognised file is a 400 naming the field the caller sent.
 */
export async function inlineFileAliases(entry: ModelEntry, body: Record<string, unknown>): Promise<void> {
  const props = (entry.input.properties ?? {}) as Record<string, unknown>;
  const own = (name: string) => props[name] !== undefined;
  for (const { role, names } of SPEC_NAMES) {
    const target = targetOf(entry, role);
    if (!target) continue;
    // `file` and `url` are the spec's names for speech-to-text's audio only.
    const taken = role === 'audio' && entry.category !== 'speech-to-text' ? names.slice(0, 2) : names;
    for (const name of taken)
      if (name !== target.field && !own(name) && body[name] !== undefined) move(body, name, target);
  }
  for (const { role, name } of BASE64_NAMES) {
    const target = targetOf(entry, role);
    if (target && !target.array && !own(name) && body[name] !== undefined)
      await inlineBase64(entry, body, name, target.field);
  }
  for (const { field } of fileFields(entry)) {
    const sibling = `${field}_base64`;
    if (body[sibling] !== undefined && !own(sibling)) await inlineBase64(entry, body, sibling, field);
  }
}
