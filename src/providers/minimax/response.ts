/**
 * MiniMax's answers, read: `{ data: { audio: <hex>, status }, extra_info, trace_id, base_resp: { status_code,
 * status_msg } }`. MiniMax reports most failures with HTTP 200 and a non-zero `base_resp.status_code`: 1026/1027
 * (sensitive content), 1039 (too long), 1042 (invalid characters) and 2013 (invalid parameters) are the caller's
 * input; 1004 and 2049 are kasir's key; the rest (1000, 1001, 1002, 1008, 1013, …) are MiniMax's own failures.
 */

import { UpstreamError } from '../../http/upstream-error.js';
import type { MediaOutput } from '../media/types.js';

const CALLER_FAULT = new Set([1026, 1027, 1039, 1042, 2013]);
const KEY_FAULT = new Set([1004, 2049]);

const FORMAT_TYPES: Record<string, string> = {
  mp3: 'audio/mpeg',
  wav: 'audio/wav',
  flac: 'audio/flac',
  pcm: 'audio/pcm',
};

export function miniMaxAudio(answer: unknown, format: string): MediaOutput {
  const body = answer as {
    data?: { audio?: unknown } | null;
    base_resp?: { status_code?: unknown; status_msg?: unknown };
  } | null;
  const code = Number(body?.base_resp?.status_code ?? Number.NaN);
  if (code !== 0) {
    const said = body?.base_resp?.status_msg;
    const message = typeof said === 'string' && said ? said.slice(0, 500) : 'no status message';
    if (KEY_FAULT.has(code))
      throw new UpstreamError(
        'upstream',
        `minimax rejected kasir's credentials (${code}); the caller did nothing wrong, the operator must check the provider key`,
      );
    if (CALLER_FAULT.has(code))
      throw new UpstreamError('bad_request', `minimax refused the request (${code}): ${message}`, {
        upstreamMessage: message,
      });
    throw new UpstreamError(
      'upstream',
      `minimax failed (${Number.isNaN(code) ? 'no status' : code}): ${message}`,
    );
  }
  const hex = body?.data?.audio;
  if (typeof hex !== 'string' || hex.length === 0 || hex.length % 2 !== 0 || !/^[0-9a-f]+$/i.test(hex))
    throw new UpstreamError('upstream', 'minimax answered without hex audio');
  return {
    kind: 'files',
    files: [
      { kind: 'bytes', bytes: Buffer.from(hex, 'hex'), contentType: FORMAT_TYPES[format] ?? 'audio/mpeg' },
    ],
  };
}
