/**
 * OpenAI's video object (the Videos API, Sora), read: `{ id, object: 'video', model, status: queued | in_progress |
 * completed | failed, progress, created_at, size, seconds, error: { code, message } | null, … }`. A completed
 * video's file is `GET /videos/{id}/content?variant=video` on the API's own host, downloaded with the key; a failed
 * one names its reason in `error` (a moderation refusal is the caller's input).
 */

import { UpstreamError } from '../../http/upstream-error.js';
import type { MediaOutput, QueueState } from '../media/types.js';

export interface Video {
  id: string;
  status: string;
  error: unknown;
}

export function video(answer: unknown): Video {
  const body = answer as Record<string, unknown> | null;
  if (!body || typeof body !== 'object' || typeof body.id !== 'string' || !/^[\w-]{1,128}$/.test(body.id))
    throw new UpstreamError('upstream', 'openai answered without a video id');
  return { id: body.id, status: typeof body.status === 'string' ? body.status : '', error: body.error };
}

/** Error codes that blame the request: the prompt or the reference image was refused by OpenAI's moderation. */
const CALLER_FAULT = /^(moderation_blocked|content_policy_violation)$/;

export function videoState(v: Video): QueueState {
  switch (v.status) {
    case 'queued':
      return { state: 'queued' };
    case 'in_progress':
      return { state: 'running' };
    case 'completed':
      return { state: 'succeeded' };
    case 'failed': {
      const { code, message } = (v.error ?? {}) as { code?: unknown; message?: unknown };
      const text = typeof message === 'string' && message ? message.slice(0, 500) : 'the video failed';
      const named = typeof code === 'string' && code ? `${text} (${code.slice(0, 60)})` : text;
      return { state: 'failed', message: named, callerFault: CALLER_FAULT.test(String(code ?? '')) };
    }
    default:
      throw new UpstreamError('upstream', `openai answered an unknown video status ${v.status.slice(0, 40)}`);
  }
}

/**
 * The completed video's MP4, for kasir to stream into its media store: on the base URL's own origin, with the key
 * (the safe fetcher sends it to that origin only, never after a redirect elsewhere).
 */
export function videoContent(id: string, baseUrl: string, headers: Record<string, string>): MediaOutput {
  const url = `${baseUrl.replace(/\/+$/, '')}/videos/${encodeURIComponent(id)}/content?variant=video`;
  return { kind: 'files', files: [{ kind: 'url', url, contentType: 'video/mp4', headers }] };
}
