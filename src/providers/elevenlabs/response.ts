/**
 * ElevenLabs' answers, read: speech and music are the audio bytes (their type from the answer's Content-Type, or
 * from the `output_format` asked for: `mp3_44100_128`, `pcm_16000`, `opus_48000_64`, `ulaw_8000`, …); a
 * transcription is `{ language_code, language_probability, text, words }`.
 */

import { UpstreamError } from '../../http/upstream-error.js';
import type { MediaOutput } from '../media/types.js';

const FORMAT_TYPES: Record<string, string> = {
  mp3: 'audio/mpeg',
  pcm: 'audio/pcm',
  opus: 'audio/opus',
  ulaw: 'audio/basic',
  alaw: 'audio/x-alaw-basic',
  wav: 'audio/wav',
};

export function elevenLabsAudio(
  answer: { contentType: string; bytes: Buffer },
  format: unknown,
): MediaOutput {
  if (answer.bytes.length === 0) throw new UpstreamError('upstream', 'elevenlabs answered with no audio');
  const family = String(format ?? 'mp3').split('_', 1)[0] ?? 'mp3';
  const contentType = answer.contentType.startsWith('audio/')
    ? answer.contentType
    : (FORMAT_TYPES[family] ?? 'audio/mpeg');
  return { kind: 'files', files: [{ kind: 'bytes', bytes: answer.bytes, contentType }] };
}

export function elevenLabsTranscript(answer: unknown): MediaOutput {
  if (
    !answer ||
    typeof answer !== 'object' ||
    Array.isArray(answer) ||
    typeof (answer as { text?: unknown }).text !== 'string'
  )
    throw new UpstreamError('upstream', 'elevenlabs answered the transcription without text');
  return { kind: 'data', body: answer as Record<string, unknown> };
}
