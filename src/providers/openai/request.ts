/**
 * OpenAI's media requests: `POST /images/generations` and `POST /audio/speech` take JSON; `POST
 * /audio/transcriptions` takes multipart/form-data with the audio as the `file` part (media/multipart.ts).
 */
import { multipartBody } from '../media/multipart.js';
import type { MediaCall } from '../media/types.js';

/** The model's JSON body: the caller's input with `model` set to OpenAI's id. */
export function openAiJsonBody(call: MediaCall): Record<string, unknown> {
  return { ...call.input, model: call.endpoint };
}

/** The transcription's multipart body: `file`, `model`, then every other input as a text part. */
export function transcriptionBody(call: MediaCall): Promise<{ contentType: string; bytes: Buffer }> {
  return multipartBody(call, { modelField: 'model', fileRequired: true });
}
