/**
 * fal's queue answers, read: the submit receipt (request_id and the status/result/cancel URLs), a status
 * (IN_QUEUE, IN_PROGRESS, COMPLETED, the last with `error` when the run failed) and a model's output, whose files
 * are fal File objects (`{ url, content_type, file_name, file_size }`) under keys such as `images`, `video`, `audio`.
 */

import { UpstreamError } from '../../http/upstream-error.js';
import type { MediaOutput, ProducedFile, QueueState } from '../media/types.js';

const asRecord = (v: unknown): Record<string, unknown> | null =>
  v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : null;

/** The request id and the paths (under the base URL) of its status, result and cancel. */
export function falHandle(answer: unknown, base: URL, appId: string): Record<string, unknown> {
  const body = asRecord(answer);
  const id = body?.request_id;
  if (typeof id !== 'string' || !/^[\w-]{1,128}$/.test(id))
    throw new UpstreamError('upstream', 'fal answered the submit without a request_id');
  const basePath = base.pathname.replace(/\/+$/, '');
  // The answer's own URLs are used when they are on the base URL (they name the right app); otherwise built.
  const pathOf = (key: string, fallback: string) => {
    const given = body?.[key];
    if (typeof given === 'string') {
      try {
        const url = new URL(given);
        if (url.origin === base.origin && url.pathname.startsWith(`${basePath}/`))
          return url.pathname.slice(basePath.length);
      } catch {
        // not a URL: built below
      }
    }
    return fallback;
  };
  const root = `/${appId}/requests/${id}`;
  return {
    requestId: id,
    status: pathOf('status_url', `${root}/status`),
    result: pathOf('response_url', root),
    cancel: pathOf('cancel_url', `${root}/cancel`),
  };
}

export function falState(answer: unknown): QueueState {
  const body = asRecord(answer);
  switch (body?.status) {
    case 'IN_QUEUE':
      return { state: 'queued' };
    case 'IN_PROGRESS':
      return { state: 'running' };
    case 'COMPLETED': {
      if (body.error === undefined || body.error === null) return { state: 'succeeded' };
      const type = typeof body.error_type === 'string' ? body.error_type : '';
      // fal's runner errors that name the request's input: the caller's fault, not the upstream's.
      const callerFault = /validation|content_policy|input|file_download/i.test(type);
      return { state: 'failed', message: String(body.error).slice(0, 500), callerFault };
    }
    default:
      throw new UpstreamError('upstream', `fal answered a status read with an unknown status`);
  }
}

/** Every fal File object in the output, depth first in key order (`images: [...]`, `video`, `audio`, …). */
function filesIn(value: unknown, found: ProducedFile[], depth = 0): void {
  if (depth > 4) return;
  if (Array.isArray(value)) {
    for (const item of value) filesIn(item, found, depth + 1);
    return;
  }
  const obj = asRecord(value);
  if (!obj) return;
  if (typeof obj.url === 'string' && /^(https?:|data:)/.test(obj.url)) {
    const type = typeof obj.content_type === 'string' ? obj.content_type : undefined;
    found.push({ kind: 'url', url: obj.url, ...(type ? { contentType: type } : {}) });
    return;
  }
  for (const key of Object.keys(obj)) filesIn(obj[key], found, depth + 1);
}

/**
 * A model's output: its files for a media model, its own body for a text one. An image output whose safety
 * checker flagged any image (`has_nsfw_concepts`) is refused: fal blanks flagged images, and a caller is not
 * charged for a blank.
 */
export function falOutput(answer: unknown, produces: string): MediaOutput {
  const body = asRecord(answer);
  if (!body) throw new UpstreamError('upstream', 'fal answered the result with a body that is not an object');
  if (produces === 'text' || produces === 'json') return { kind: 'data', body };
  const flagged = body.has_nsfw_concepts;
  if (Array.isArray(flagged) && flagged.some((f) => f === true)) {
    throw new UpstreamError('bad_request', 'fal: the safety checker flagged the output', {
      upstreamMessage: 'the output was flagged by the safety checker (has_nsfw_concepts)',
    });
  }
  const files: ProducedFile[] = [];
  filesIn(body, files);
  if (files.length === 0) throw new UpstreamError('upstream', 'fal answered the result without any file');
  return { kind: 'files', files };
}
