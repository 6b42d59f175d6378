/**
 * Deepgram's pre-recorded answer, read: `{ metadata: { request_id, duration, channels, … }, results: { channels:
 * [{ alternatives: [{ transcript, confidence, words }] }], utterances?, … } }`. kasir answers it as it stands, with
 * `text` (the first channel's best transcript) beside it, as every transcription's output has.
 */

import { UpstreamError } from '../../http/upstream-error.js';
import type { MediaOutput } from '../media/types.js';

export function deepgramTranscript(answer: unknown): MediaOutput {
  const body = answer as {
    results?: { channels?: Array<{ alternatives?: Array<{ transcript?: unknown }> }> };
  };
  const text = body?.results?.channels?.[0]?.alternatives?.[0]?.transcript;
  if (typeof text !== 'string') throw new UpstreamError('upstream', 'deepgram answered without a transcript');
  return { kind: 'data', body: { text, ...(answer as Record<string, unknown>) } };
}
