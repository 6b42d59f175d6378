/**
 * Runway's task object, read: `{ id, status: PENDING | THROTTLED | RUNNING | SUCCEEDED | FAILED | CANCELLED,
 * output: [url…], failure, failureCode }`. A succeeded task's output lists one or more ephemeral file URLs; a failed
 * one gives its reason in `failure` and its class in `failureCode` (`SAFETY.*` and `ASSET.INVALID` are the
 * caller's input).
 */

import { UpstreamError } from '../../http/upstream-error.js';
import type { MediaOutput, QueueState } from '../media/types.js';

interface Task {
  id: string;
  status: string;
  output: unknown;
  failure: unknown;
  failureCode: unknown;
}

export function task(answer: unknown): Task {
  const body = answer as Partial<Task> | null;
  if (!body || typeof body.id !== 'string' || !/^[\w-]{1,128}$/.test(body.id))
    throw new UpstreamError('upstream', 'runway answered without a task id');
  return {
    id: body.id,
    status: typeof body.status === 'string' ? body.status : '',
    output: body.output,
    failure: body.failure,
    failureCode: body.failureCode,
  };
}

const CALLER_FAULT = /^(SAFETY|INPUT_PREPROCESSING\.SAFETY|ASSET\.INVALID)/;

export function taskState(t: Task): QueueState {
  switch (t.status) {
    case 'PENDING':
    case 'THROTTLED':
      return { state: 'queued' };
    case 'RUNNING':
      return { state: 'running' };
    case 'SUCCEEDED':
      return { state: 'succeeded' };
    case 'FAILED': {
      const message =
        typeof t.failure === 'string' && t.failure ? t.failure.slice(0, 500) : 'the task failed';
      const code = typeof t.failureCode === 'string' ? t.failureCode : '';
      return { state: 'failed', message, callerFault: CALLER_FAULT.test(code) };
    }
    case 'CANCELLED':
      return { state: 'failed', message: 'the task was cancelled', callerFault: false };
    default:
      throw new UpstreamError('upstream', `runway answered an unknown status ${t.status.slice(0, 40)}`);
  }
}

export function taskOutput(t: Task): MediaOutput {
  const urls = (Array.isArray(t.output) ? t.output : []).filter(
    (u): u is string => typeof u === 'string' && /^https?:\/\//.test(u),
  );
  if (t.status !== 'SUCCEEDED' || urls.length === 0)
    throw new UpstreamError('upstream', 'runway answered the task without an output');
  return { kind: 'files', files: urls.map((url) => ({ kind: 'url', url })) };
}
