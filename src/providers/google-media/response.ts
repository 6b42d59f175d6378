/**
 * The Gemini API's media answers, read:
 * - Imagen `{ predictions: [{ bytesBase64Encoded, mimeType } | { raiFilteredReason }] }`: images inline; when every
 *   image was filtered by Google's safety filters, the prompt is refused (the caller's input);
 * - Gemini `{ candidates: [{ content: { parts: [{ inlineData: { mimeType, data } } | { text }] }, finishReason }],
 *   promptFeedback }`: the image parts; a blocked prompt or no image is a refusal;
 * - Veo's long-running operation `{ name, done, error?: { code, message }, response: { generateVideoResponse: {
 *   generatedSamples: [{ video: { uri } }], raiMediaFilteredReasons? } } }`, read again at `GET /v1beta/{name}`.
 */

import { UpstreamError } from '../../http/upstream-error.js';
import type { MediaOutput, ProducedFile, QueueState } from '../media/types.js';

const refused = (why: string) =>
  new UpstreamError('bad_request', `google refused the request: ${why}`, { upstreamMessage: why });

export function imagenImages(answer: unknown): MediaOutput {
  const predictions = (answer as { predictions?: unknown } | null)?.predictions;
  const all = Array.isArray(predictions) ? (predictions as Array<Record<string, unknown>>) : [];
  const files: ProducedFile[] = [];
  for (const p of all)
    if (typeof p.bytesBase64Encoded === 'string' && p.bytesBase64Encoded)
      files.push({
        kind: 'bytes',
        bytes: Buffer.from(p.bytesBase64Encoded, 'base64'),
        contentType: typeof p.mimeType === 'string' ? p.mimeType : 'image/png',
      });
  if (files.length > 0) return { kind: 'files', files };
  const reason = all.map((p) => p.raiFilteredReason).find((r) => typeof r === 'string');
  throw refused(typeof reason === 'string' ? reason.slice(0, 500) : 'no image was returned (safety filters)');
}

export function geminiImages(answer: unknown): MediaOutput {
  const body = answer as {
    candidates?: Array<{ content?: { parts?: Array<Record<string, unknown>> }; finishReason?: unknown }>;
    promptFeedback?: { blockReason?: unknown };
  } | null;
  const blocked = body?.promptFeedback?.blockReason;
  if (typeof blocked === 'string') throw refused(`the prompt was blocked (${blocked.slice(0, 100)})`);
  const files: ProducedFile[] = [];
  for (const part of body?.candidates?.[0]?.content?.parts ?? []) {
    const inline = (part.inlineData ?? part.inline_data) as
      | { mimeType?: unknown; data?: unknown }
      | undefined;
    if (inline && typeof inline.data === 'string' && typeof inline.mimeType === 'string')
      files.push({ kind: 'bytes', bytes: Buffer.from(inline.data, 'base64'), contentType: inline.mimeType });
  }
  if (files.length > 0) return { kind: 'files', files };
  const finish = body?.candidates?.[0]?.finishReason;
  if (typeof finish === 'string' && /SAFETY|PROHIBITED|BLOCKLIST|IMAGE_SAFETY|RECITATION/.test(finish))
    throw refused(`no image was returned (${finish.slice(0, 100)})`);
  throw new UpstreamError('upstream', 'google answered without an image');
}

interface Operation {
  name: string;
  done: boolean;
  error: unknown;
  response: unknown;
}

export function operation(answer: unknown): Operation {
  const body = answer as Partial<Operation> | null;
  if (
    !body ||
    typeof body.name !== 'string' ||
    !/^models\/[\w.-]+\/operations\/[\w-]{1,128}$/.test(body.name)
  )
    throw new UpstreamError('upstream', 'google answered without an operation name');
  return { name: body.name, done: body.done === true, error: body.error, response: body.response };
}

/** Google's error codes that blame the request (INVALID_ARGUMENT, FAILED_PRECONDITION, OUT_OF_RANGE). */
const CALLER_CODES = new Set([3, 9, 11, 400]);

export function operationState(op: Operation): QueueState {
  if (!op.done) return { state: 'running' };
  if (op.error && typeof op.error === 'object') {
    const { code, message } = op.error as { code?: unknown; message?: unknown };
    const text = typeof message === 'string' && message ? message.slice(0, 500) : 'the operation failed';
    return { state: 'failed', message: text, callerFault: CALLER_CODES.has(Number(code)) };
  }
  return { state: 'succeeded' };
}

export function operationVideos(op: Operation, headers: Record<string, string>): MediaOutput {
  const result = (op.response as { generateVideoResponse?: Record<string, unknown> } | undefined)
    ?.generateVideoResponse;
  const samples = Array.isArray(result?.generatedSamples)
    ? (result.generatedSamples as Array<{ video?: { uri?: unknown } }>)
    : [];
  const files: ProducedFile[] = [];
  for (const s of samples)
    if (typeof s.video?.uri === 'string' && /^https?:\/\//.test(s.video.uri))
      // The file is on the API's own host and needs the key: the safe fetcher sends it there and nowhere else.
      files.push({ kind: 'url', url: s.video.uri, contentType: 'video/mp4', headers });
  if (files.length > 0) return { kind: 'files', files };
  const filtered = result?.raiMediaFilteredReasons;
  if (Array.isArray(filtered) && typeof filtered[0] === 'string') throw refused(filtered[0].slice(0, 500));
  throw new UpstreamError('upstream', 'google answered the operation without a video');
}
