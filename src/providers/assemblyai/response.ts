/**
 * AssemblyAI's transcript object, read: `{ id, status: queued | processing | completed | error, text, words,
 * utterances, error, … }`. A completed transcript is the answer as it stands; an errored one carries its reason in
 * `error` (an audio file it could not read or download is the caller's fault).
 */

import { UpstreamError } from '../../http/upstream-error.js';
import type { MediaOutput, QueueState } from '../media/types.js';

interface Transcript {
  id: string;
  status: string;
  body: Record<string, unknown>;
}

export function transcript(answer: unknown): Transcript {
  const body = answer as Record<string, unknown> | null;
  if (
    !body ||
    typeof body !== 'object' ||
    typeof body.id !== 'string' ||
    !/^[\w-]{1,128}$/.test(body.id) ||
    typeof body.status !== 'string'
  )
    throw new UpstreamError('upstream', 'assemblyai answered without a transcript');
  return { id: body.id, status: body.status, body };
}

/** The `upload_url` of a `POST /v2/upload` answer. */
export function uploadUrl(answer: unknown): string {
  const url = (answer as { upload_url?: unknown } | null)?.upload_url;
  if (typeof url !== 'string' || !/^https?:\/\//.test(url))
    throw new UpstreamError('upstream', 'assemblyai answered the upload without an upload_url');
  return url;
}

/** Errors AssemblyAI reports for the caller's audio (unreadable, unreachable, too short, no speech). */
const CALLER_FAULT =
  /download|not.*(valid|supported)|unsupported|no spoken audio|too short|audio file|language/i;

export function transcriptState(t: Transcript): QueueState {
  switch (t.status) {
    case 'queued':
      return { state: 'queued' };
    case 'processing':
      return { state: 'running' };
    case 'completed':
      return { state: 'succeeded' };
    case 'error': {
      const error = t.body.error;
      const message = typeof error === 'string' && error ? error.slice(0, 500) : 'the transcript failed';
      return { state: 'failed', message, callerFault: CALLER_FAULT.test(message) };
    }
    default:
      throw new UpstreamError('upstream', `assemblyai answered an unknown status ${t.status.slice(0, 40)}`);
  }
}

export function transcriptOutput(t: Transcript): MediaOutput {
  if (t.status !== 'completed' || typeof t.body.text !== 'string')
    throw new UpstreamError('upstream', 'assemblyai answered the transcript without text');
  return { kind: 'data', body: t.body };
}
