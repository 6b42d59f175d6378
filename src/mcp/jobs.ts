/**
 * Long calls over MCP (video models, recipes): sold as kasir's async jobs where the rail can carry one (a prepaid
 * key's hold outlives the request), followed through the free `GET /v1/jobs/{id}` with MCP progress notifications
 * naming the job (`_meta["kasir/job"]`). The job runs and settles once whatever the caller does; a caller that lost
 * its connection calls the tool again with `_meta["kasir/job"]` and gets the same job's result, paying nothing more.
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { CatalogEntry } from '../catalog/types.js';

export const JOB_META = 'kasir/job';

/** Entries whose calls take minutes: run as async jobs (the rails that cannot carry one answer synchronously). */
export function isLongCall(entry: CatalogEntry): boolean {
  return entry.kind === 'recipe' || (entry.kind === 'model' && entry.output === 'video');
}

export interface JobProgress {
  progress: number;
  message: string;
  jobId: string;
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
  read: (path: string) => Promise<Response>,
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
