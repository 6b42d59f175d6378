/**
 * OpenAI's media requests: `POST /images/generations` and `POST /audio/speech` take JSON; `POST
 * /audio/transcriptions` takes multipart/form-data with the audio as the `file` part (its file name's extension
 * tells OpenAI the format). The multipart body is encoded by the platform's FormData, not by hand.
 */
import type { FileValue, MediaCall } from '../media/types.js';
import { UpstreamError } from '../types.js';

/** The model's JSON body: the caller's input with `model` set to OpenAI's id. */
export function openAiJsonBody(call: MediaCall): Record<string, unknown> {
  return { ...call.input, model: call.endpoint };
}

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

/** The transcription's multipart body: `file`, `model`, then every other input as a text part. */
export async function transcriptionBody(call: MediaCall): Promise<{ contentType: string; bytes: Buffer }> {
  const file = call.files.file as FileValue | undefined;
  if (file?.kind !== 'bytes')
    throw new UpstreamError('bad_request', 'the audio file did not reach the adapter', {
      upstreamMessage: 'file is required',
    });
  const form = new FormData();
  const ext = AUDIO_EXTENSIONS[file.contentType] ?? 'mp3';
  form.append('file', new Blob([file.bytes], { type: file.contentType }), `audio.${ext}`);
  form.append('model', call.endpoint);
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
