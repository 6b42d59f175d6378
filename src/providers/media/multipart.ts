/**
 * A media call as multipart/form-data: the audio file as the `file` part (its name's extension tells the
 * provider the format), the model id under the provider's field name, every other input as a text part. Encoded by
 * the platform's FormData, not by hand.
 */
import { UpstreamError } from '../types.js';
import type { FileValue, MediaCall } from './types.js';

const AUDIO_EXTENSIONS: Record<string, string> = {
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
};

export async function multipartBody(
  call: MediaCall,
  options: { modelField: string; fileRequired: boolean },
): Promise<{ contentType: string; bytes: Buffer }> {
  const file = call.files.file as FileValue | undefined;
  if (options.fileRequired && file?.kind !== 'bytes')
    throw new UpstreamError('bad_request', 'the audio file did not reach the adapter', {
      upstreamMessage: 'file is required',
    });
  const form = new FormData();
  if (file?.kind === 'bytes') {
    const ext = AUDIO_EXTENSIONS[file.contentType] ?? 'mp3';
    form.append('file', new Blob([file.bytes], { type: file.contentType }), `audio.${ext}`);
  }
  form.append(options.modelField, call.endpoint);
  for (const [key, value] of Object.entries(call.input)) {
    if (key === 'file' || value === undefined || value === null) continue;
    if (Array.isArray(value)) for (const item of value) form.append(`${key}[]`, String(item));
    else form.append(key, typeof value === 'object' ? JSON.stringify(value) : String(value));
  }
  const encoded = new Response(form);
  return {
    contentType: encoded.headers.get('content-type') ?? 'multipart/form-data',
    bytes: Buffer.from(await encoded.arrayBuffer()),
  };
}
