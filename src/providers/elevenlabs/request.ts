/**
 * ElevenLabs' requests: text-to-speech `POST /v1/text-to-speech/{voice_id}?output_format=…` with
 * `{ text, model_id, … }`; music `POST /v1/music?output_format=…` with `{ prompt | composition_plan,
 * music_length_ms, model_id, … }`; speech-to-text `POST /v1/speech-to-text` as multipart/form-data with `model_id`
 * and the `file` (or a `cloud_storage_url`).
 */
import { multipartBody } from '../media/multipart.js';
import type { MediaCall } from '../media/types.js';

/** The path and JSON body of a speech or music call: `voice_id` and `output_format` go in the URL. */
export function elevenLabsJson(
  call: MediaCall,
  kind: 'speech' | 'music',
): { path: string; body: Record<string, unknown> } {
  const { voice_id: voice, output_format: format, ...rest } = call.input;
  const query = typeof format === 'string' ? `?output_format=${encodeURIComponent(format)}` : '';
  const path = kind === 'speech' ? `/v1/text-to-speech/${encodeURIComponent(String(voice))}` : '/v1/music';
  return { path: `${path}${query}`, body: { ...rest, model_id: call.endpoint } };
}

export function elevenLabsTranscription(call: MediaCall): Promise<{ contentType: string; bytes: Buffer }> {
  return multipartBody(call, { modelField: 'model_id', fileRequired: false });
}
