/**
 * AssemblyAI's requests: `POST /v2/upload` takes the raw bytes of a file the caller sent inline (answering
 * `{ upload_url }`), and `POST /v2/transcript` takes `{ audio_url, speech_models: [model], …options }`.
 */

import { UpstreamError } from '../../http/upstream-error.js';
import type { FileValue, MediaCall } from '../media/types.js';

/** The file input as the adapter got it: a public URL AssemblyAI fetches, or bytes kasir uploads first. */
export function audioInput(call: MediaCall): FileValue {
  const file = call.files.audio_url;
  if (!file || Array.isArray(file))
    throw new UpstreamError('bad_request', 'the audio file did not reach the adapter', {
      upstreamMessage: 'audio_url is required',
    });
  return file;
}

/** The transcript request: the model as AssemblyAI's `speech_models` list, every other input as given. */
export function transcriptBody(call: MediaCall, audioUrl: string): Record<string, unknown> {
  return { ...call.input, audio_url: audioUrl, speech_models: [call.endpoint] };
}
