/**
 * Long calls over MCP (video models, recipes): sold as kasir's async jobs where the rail can carry one (a prepaid
 * key's hold outlives the request), followed through the free `GET /v1/jobs/{id}` with MCP progress notifications
 * naming the job (`_meta["kasir/job"]`). The job runs and settles once whatever the caller does; a caller that lost
 * its connection calls the tool again with `_meta["kasir/job"]` and gets the same job's result, paying nothing more.
 * A long call paid from a wallet runs within its request (the payment settles on its answer): it reports that it is
 * running, and a caller that lost it sends the same payment again, which answers the stored result, paid once.
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { CatalogEntry } from '../catalog/types.js';
import type { Answer } from './answer.js';

export const JOB_META = 'kasir/job';

/** Entries whose calls take minutes: run as async jobs (the rails that cannot carry one answer synchronously). */
export function isLongCall(entry: CatalogEntry): boolean {
  return entry.kind === 'recipe' || (entry.kind === 'model' && entry.output === 'video');
}

export interface JobProgress {
  progress: number;
  message: string;
  /** The job the call runs as; absent while a long call runs synchronously (a wallet rail carries no job). */
  jobId?: string;
}

/** How often a long call that runs synchronously says it is still running. */
export const RUNNING_BEAT_MS = 5_000;

/**
 * Progress for a long call the rail answers synchronously (a wallet payment: its call runs inside the request that
 * pays it): a notification at once and then every RUNNING_BEAT_MS until stopped, so the caller knows the paid call is
 * under way. Returns the stop.
 */
export function reportRunning(report: (p: JobProgress) => Promise<void>): () => void {
  const started = Date.now();
  let beats = 0;
  const beat = () => {
    beats++;
    const seconds = Math.round((Date.now() - started) / 1000);
    report({ progress: beats, message: `running (${seconds} s); the answer comes with this call` }).catch(
      () => {
        // A caller gone is the call's own concern: its answer is still kept for a retry with the same payment.
      },
    );
  };
  beat();
  const timer = setInterval(beat, RUNNING_BEAT_MS);
  return () => clearInterval(timer);
}

/** A job id as kasir makes them (128 random bits). */
export const isJobId = (value: unknown): value is string =>
  typeof value === 'string' && /^job_[0-9a-f]{32}$/.test(value);

const FIRST_WAIT_MS = 100;
const MAX_WAIT_MS = 2_000;

/**
 * Follows job `jobId` until it ends: progress after each status read, the job's result (the synchronous call's body)
 * as the tool result via `resultOf`.
 */
export async function followJob(
  jobId: string,
  read: (path: string) => Promise<Answer>,
  resultOf: (body: Record<string, unknown>, meta: Record<string, unknown>) => CallToolResult,
  progress: ((p: JobProgress) => Promise<void>) | undefined,
  signal: AbortSignal | undefined,
): Promise<CallToolResult> {
  let wait = FIRST_WAIT_MS;
  for (let reads = 1; ; reads++) {
    const res = await read(`/v1/jobs/${jobId}`);
    const body = (await res.json()) as {
      status?: string;
      result?: Record<string, unknown>;
      error?: { message?: string };
    };
    if (res.status !== 200) {
      return {
        isError: true,
        content: [{ type: 'text', text: `no job ${jobId} on this server` }],
        _meta: { 'kasir/error': (body as { error?: unknown }).error ?? body },
      };
    }
    const meta = { [JOB_META]: jobId };
    if (body.status === 'succeeded' && body.result) return resultOf(body.result, meta);
    if (body.status === 'failed') {
      return {
        isError: true,
        content: [{ type: 'text', text: body.error?.message ?? `job ${jobId} failed; nothing was charged` }],
        _meta: { ...meta, 'kasir/error': body.error },
      };
    }
    await progress?.({ progress: reads, message: `job ${jobId}: ${body.status ?? 'running'}`, jobId });
    if (signal?.aborted) throw signal.reason;
    await new Promise((resolve) => setTimeout(resolve, wait));
    wait = Math.min(MAX_WAIT_MS, Math.ceil(wait * 1.5));
  }
}
