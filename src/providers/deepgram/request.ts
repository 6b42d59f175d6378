/**
 * Deepgram's pre-recorded request: `POST /v1/listen?model=…&…` where every option is a query parameter (lists
 * repeat it: `keyterm=a&keyterm=b`), and the body is `{ url }` for a public file or the audio bytes themselves with
 * their content type. `callback` is not passed on: with it Deepgram answers only a request id and posts the
 * transcript elsewhere, while kasir must hand the transcript to the caller who paid for it.
 */

import { UpstreamError } from '../../http/upstream-error.js';
import type { MediaCall } from '../media/types.js';

const NOT_SENT = new Set(['url', 'callback']);

export function listenPath(call: MediaCall): string {
  const query = new URLSearchParams({ model: call.endpoint });
  for (const [key, value] of Object.entries(call.input)) {
    if (NOT_SENT.has(key) || value === undefined || value === null) continue;
    for (const item of Array.isArray(value) ? value : [value]) query.append(key, String(item));
  }
  return `/v1/listen?${query.toString()}`;
}

export function listenBody(call: MediaCall): { contentType: string; bytes: Buffer | string } {
  const file = call.files.url;
  if (!file || Array.isArray(file))
    throw new UpstreamError('bad_request', 'the audio file did not reach the adapter', {
      upstreamMessage: 'url is required',
    });
  if (file.kind === 'url')
    return { contentType: 'application/json', bytes: JSON.stringify({ url: file.url }) };
  return { contentType: file.contentType, bytes: file.bytes };
}
