/**
 * Replicate's prediction object, read: `{ id, status: starting | processing | succeeded | failed | canceled |
 * aborted,
 * output, error, urls: { get, cancel } }`. A media model's `output` is a file URL or a list of them (on
 * replicate.delivery, or data URIs); a failed prediction carries its reason in `error`.
 */

import { UpstreamError } from '../../http/upstream-error.js';
import type { MediaOutput, ProducedFile, QueueState } from '../media/types.js';

interface Prediction {
  id: string;
  status: string;
  output: unknown;
  error: unknown;
}

export function prediction(answer: unknown): Prediction {
  const body = answer as Partial<Prediction> | null;
  if (
    !body ||
    typeof body.id !== 'string' ||
    !/^[\w-]{1,128}$/.test(body.id) ||
    typeof body.status !== 'string'
  )
    throw new UpstreamError('upstream', 'replicate answered without a prediction');
  return { id: body.id, status: body.status, output: body.output, error: body.error };
}

/** Errors Replicate's models report for the caller's input (NSFW filters, bad input files). */
const CALLER_FAULT = /nsfw|sensitive|flagged|safety|invalid input|cannot identify image/i;

export function predictionState(p: Prediction): QueueState {
  switch (p.status) {
    case 'starting':
      return { state: 'queued' };
    case 'processing':
      return { state: 'running' };
    case 'succeeded':
      return { state: 'succeeded' };
    case 'failed': {
      const message =
        typeof p.error === 'string' && p.error ? p.error.slice(0, 500) : 'the prediction failed';
      return { state: 'failed', message, callerFault: CALLER_FAULT.test(message) };
    }
    case 'canceled':
    case 'aborted':
      // `aborted`: stopped before it started (a deadline passed, or it was cancelled while still queued).
      return { state: 'failed', message: `the prediction was ${p.status}`, callerFault: false };
    default:
      throw new UpstreamError('upstream', `replicate answered an unknown status ${p.status.slice(0, 40)}`);
  }
}

export function predictionOutput(p: Prediction, produces: string): MediaOutput {
  if (produces === 'text' || produces === 'json')
    return {
      kind: 'data',
      body:
        typeof p.output === 'object' && p.output !== null
          ? (p.output as Record<string, unknown>)
          : { text: p.output },
    };
  const urls = (Array.isArray(p.output) ? p.output : [p.output]).filter(
    (u): u is string => typeof u === 'string' && /^(https?:|data:)/.test(u),
  );
  if (urls.length === 0)
    throw new UpstreamError('upstream', 'replicate answered the prediction without a file');
  const files: ProducedFile[] = urls.map((url) => ({ kind: 'url', url }));
  return { kind: 'files', files };
}
