/**
 * OpenAI's media answers, read: images as `{ created, data: [{ b64_json | url, revised_prompt }] }`, speech as the
 * audio bytes themselves, transcriptions as `{ text, … }` (json, verbose_json) or plain text (text, srt, vtt).
 */

import { UpstreamError } from '../../http/upstream-error.js';
import type { MediaOutput, ProducedFile } from '../media/types.js';

const IMAGE_TYPES: Record<string, string> = { png: 'image/png', jpeg: 'image/jpeg', webp: 'image/webp' };

export function openAiImages(answer: unknown, outputFormat: unknown): MediaOutput {
  const data = (answer as { data?: unknown } | null)?.data;
  if (!Array.isArray(data) || data.length === 0)
    throw new UpstreamError('upstream', 'openai answered the image request without data');
  const contentType = IMAGE_TYPES[String(outputFormat ?? 'png')] ?? 'image/png';
  const files: ProducedFile[] = data.map((item: { b64_json?: unknown; url?: unknown }) => {
    if (typeof item?.b64_json === 'string')
      return { kind: 'bytes', bytes: Buffer.from(item.b64_json, 'base64'), contentType };
    if (typeof item?.url === 'string') return { kind: 'url', url: item.url };
    throw new UpstreamError('upstream', 'openai answered an image with neither b64_json nor url');
  });
  return { kind: 'files', files };
}

const SPEECH_TYPES: Record<string, string> = {
  mp3: 'audio/mpeg',
  opus: 'audio/opus',
  aac: 'audio/aac',
  flac: 'audio/flac',
  wav: 'audio/wav',
  pcm: 'audio/pcm',
};

export function openAiSpeech(answer: { contentType: string; bytes: Buffer }, format: unknown): MediaOutput {
  if (answer.bytes.length === 0)
    throw new UpstreamError('upstream', 'openai answered the speech request with no audio');
  const declared = answer.contentType.startsWith('audio/') ? answer.contentType : undefined;
  const contentType = declared ?? SPEECH_TYPES[String(format ?? 'mp3')] ?? 'audio/mpeg';
  return { kind: 'files', files: [{ kind: 'bytes', bytes: answer.bytes, contentType }] };
}

/**
 * A streamed transcription's server-sent events (`transcript.text.delta` with `delta`, then `transcript.text.done`
 * with the whole `text` and the `usage`), read into the body a whole answer has: `{ text, usage }`. Without a done
 * event the deltas are joined; with neither the answer is refused (nothing charged).
 */
export function streamedTranscription(events: string): Record<string, unknown> {
  let deltas = '';
  for (const line of events.split(/\r?\n/)) {
    if (!line.startsWith('data:')) continue;
    const data = line.slice(5).trim();
    if (data === '' || data === '[DONE]') continue;
    let event: { type?: unknown; delta?: unknown; text?: unknown; usage?: unknown };
    try {
      event = JSON.parse(data) as typeof event;
    } catch {
      throw new UpstreamError('upstream', 'openai streamed a transcription event that is not JSON');
    }
    if (event.type === 'transcript.text.delta' && typeof event.delta === 'string') deltas += event.delta;
    if (event.type === 'transcript.text.done' && typeof event.text === 'string')
      return event.usage === undefined ? { text: event.text } : { text: event.text, usage: event.usage };
  }
  if (deltas === '') throw new UpstreamError('upstream', 'openai streamed a transcription without any text');
  return { text: deltas };
}

export function openAiTranscription(answer: { contentType: string; bytes: Buffer }): MediaOutput {
  const text = answer.bytes.toString('utf8');
  if (answer.contentType === 'text/event-stream') return { kind: 'data', body: streamedTranscription(text) };
  if (answer.contentType === 'application/json') {
    try {
      const body = JSON.parse(text) as unknown;
      if (body && typeof body === 'object' && !Array.isArray(body))
        return { kind: 'data', body: body as Record<string, unknown> };
    } catch {
      // not JSON after all: taken as text below
    }
  }
  return { kind: 'data', body: { text } };
}
