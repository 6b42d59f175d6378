/**
 * A media call as multipart/form-data: the file input as a file part (its name's extension tells the provider the
 * format), the model id under the provider's field name, every other input as a text part. Encoded by the
 * platform's FormData, not by hand.
 */
import { UpstreamError } from '../../http/upstream-error.js';
import type { FileValue, MediaCall } from './types.js';

const EXTENSIONS: Record<string, string> = {
  'audio/mpeg': 'mp3',
  'audio/mp3': 'mp3',
  'audio/mp4': 'm4a',
  'audio/x-m4a': 'm4a',
  'audio/wav': 'wav',
  'audio/x-wav': 'wav',
  'audio/wave': 'wav',
  'audio/webm': 'webm',
  'video/webm': 'webm',
  'video/mp4': 'mp4',
  'audio/ogg': 'ogg',
  'audio/flac': 'flac',
  'audio/x-flac': 'flac',
  'image/png': 'png',
  'image/jpeg': 'jpg',
  'image/webp': 'webp',
};

/** The part's file name: `image.<ext>` for an image, `audio.<ext>` for the rest (mp3 when the type is unknown). */
function fileName(contentType: string): string {
  const ext = EXTENSIONS[contentType];
  if (contentType.startsWith('image/')) return `image.${ext ?? 'png'}`;
  return `audio.${ext ?? 'mp3'}`;
}

export async function multipartBody(
  call: MediaCall,
  options: {
    modelField: string;
    /** The field of the file input, sent as the file part under the same name (default `file`). */
    fileField?: string;
    fileRequired: boolean;
  },
): Promise<{ contentType: string; bytes: Buffer }> {
  const fileField = options.fileField ?? 'file';
  const file = call.files[fileField] as FileValue | undefined;
  if (options.fileRequired && file?.kind !== 'bytes')
    throw new UpstreamError('bad_request', `the ${fileField} input did not reach the adapter`, {
      upstreamMessage: `${fileField} is required`,
    });
  const form = new FormData();
  if (file?.kind === 'bytes')
    form.append(fileField, new Blob([file.bytes], { type: file.contentType }), fileName(file.contentType));
  form.append(options.modelField, call.endpoint);
  for (const [key, value] of Object.entries(call.input)) {
    if (key === fileField || value === undefined || value === null) continue;
    if (Array.isArray(value)) for (const item of value) form.append(`${key}[]`, String(item));
    else form.append(key, typeof value === 'object' ? JSON.stringify(value) : String(value));
  }
  const encoded = new Response(form);
  return {
    contentType: encoded.headers.get('content-type') ?? 'multipart/form-data',
    bytes: Buffer.from(await encoded.arrayBuffer()),
  };
}
