/**
 * OpenAI's media requests: `POST /images/generations` and `POST /audio/speech` take JSON; `POST
 * /audio/transcriptions` and `POST /videos` take multipart/form-data (media/multipart.ts), the first with the audio
 * as the `file` part, the second with the optional first-frame image as the `input_reference` part.
 */
import { multipartBody } from '../media/multipart.js';
import type { MediaCall } from '../media/types.js';

/** The model's JSON body: the caller's input with `model` set to OpenAI's id. */
export function openAiJsonBody(call: MediaCall): Record<string, unknown> {
  return { ...call.input, model: call.endpoint };
}

/**
 * The transcription's multipart body: `file`, `model`, then every other input as a text part, except `stream`:
 * kasir answers one JSON body whatever the caller asked, so the transcript is asked for whole (a streamed one
 * would come back as server-sent events).
 */
export function transcriptionBody(call: MediaCall): Promise<{ contentType: string; bytes: Buffer }> {
  const { stream: _stream, ...input } = call.input;
  return multipartBody({ ...call, input }, { modelField: 'model', fileRequired: true });
}

/**
 * The video's multipart body: `model`, `prompt`, `seconds` and `size` as text parts (`seconds` is a string enum on
 * the wire, as the catalog declares it), and `input_reference` as an image file part when one is given.
 */
export function videoBody(call: MediaCall): Promise<{ contentType: string; bytes: Buffer }> {
  return multipartBody(call, { modelField: 'model', fileField: 'input_reference', fileRequired: false });
}
