/**
 * The call adapter: a `tools/call` is sold by the HTTP checkout itself. It becomes the entry's own HTTP request
 * (route, body, and the headers its payment and options stand for), dispatched in-process through the app, and the
 * answer is mapped back to an MCP tool result — so validation before any charge, the quote, every rail, idempotency
 * and X-Max-Price work exactly as they do over HTTP.
 */
import type { CallToolResult, ContentBlock } from '@modelcontextprotocol/sdk/types.js';
import { ErrorCode } from '@modelcontextprotocol/sdk/types.js';
import { type CatalogEntry, methodOf, pathOf } from '../catalog/types.js';
import type { Answer } from './answer.js';
import { followJob, isJobId, isLongCall, JOB_META, type JobProgress, reportRunning } from './jobs.js';
import {
  credentialChallengeId,
  headersFromMeta,
  paymentRequiredError,
  paymentRequiredResult,
  paysInRequest,
  receiptMeta,
  x402RefusalResult,
} from './payment.js';
import { RpcError } from './rpc-error.js';

/** Where a refused call's error body (`{ code, message, details? }`) is carried. */
export const ERROR_META = 'kasir/error';

/** Fields of a chat body that only make sense on HTTP: an MCP result is one whole answer. */
const HTTP_ONLY_CHAT_FIELDS = ['stream', 'stream_options'];

/** The HTTP request a tool call stands for (without the origin). */
export function requestOf(
  entry: CatalogEntry,
  args: Record<string, unknown>,
  headers: Record<string, string>,
): { path: string; init: RequestInit } {
  const path = pathOf(entry);
  // A free lookup is a GET route taking its input as the query string.
  if (methodOf(entry) === 'GET') {
    const query = new URLSearchParams();
    for (const [k, v] of Object.entries(args)) {
      if (v !== undefined && v !== null) query.set(k, typeof v === 'object' ? JSON.stringify(v) : String(v));
    }
    const qs = query.toString();
    return { path: qs ? `${path}?${qs}` : path, init: { method: 'GET', headers } };
  }
  let body: Record<string, unknown> = args;
  if (entry.kind === 'model') {
    body = { ...args, model: entry.id };
    if (entry.category === 'chat') for (const f of HTTP_ONLY_CHAT_FIELDS) delete body[f];
  }
  return {
    path,
    init: {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    },
  };
}

export interface CallContext {
  /** Sends a request to the app, in-process. */
  dispatch(path: string, init: RequestInit): Promise<Answer>;
  /** Headers of the MCP HTTP request every call carries (a prepaid key's `Authorization: Bearer`). */
  headers: Record<string, string>;
  /**
   * How an unpaid call is answered: the payment-required JSON-RPC error (`/mcp`, MPP's convention) or a tool result
   * with `isError` (`/x402/mcp`, x402's MCP transport).
   */
  unpaidAs: 'error' | 'result';
  /** Told what a key was charged for a job this call started (its 202 stated 0; the job captured later). */
  jobCharged?(microUsd: number): void;
}

/** What one call may report while it runs (a long call's job), and its cancellation. */
export interface CallProgress {
  report?: (p: JobProgress) => Promise<void>;
  signal?: AbortSignal;
}

/** An image this small is also sent inline, as image content, beside its link. */
export const INLINE_IMAGE_MAX_BYTES = 256 * 1024;

interface Link {
  uri: string;
  mimeType?: string;
  sizeBytes?: number;
}

/** Every `url` field of an answer (a media model's re-hosted files), with the MIME type and size beside it when stated. */
function linksIn(value: unknown, out: Link[] = [], depth = 0) {
  if (depth > 6 || typeof value !== 'object' || value === null) return out;
  if (Array.isArray(value)) {
    for (const v of value) linksIn(v, out, depth + 1);
    return out;
  }
  const obj = value as Record<string, unknown>;
  for (const [k, v] of Object.entries(obj)) {
    if (k === 'receipt') continue;
    if (k === 'url' && typeof v === 'string' && /^https?:\/\//.test(v)) {
      const mime = obj.contentType ?? obj.content_type ?? obj.mimeType;
      out.push({
        uri: v,
        ...(typeof mime === 'string' ? { mimeType: mime } : {}),
        ...(typeof obj.sizeBytes === 'number' ? { sizeBytes: obj.sizeBytes } : {}),
      });
    } else linksIn(v, out, depth + 1);
  }
  return out;
}

/** The text of a chat completion's choices. */
function chatText(body: Record<string, unknown>): string {
  const choices = Array.isArray(body.choices) ? body.choices : [];
  return choices
    .map((c) => (c as { message?: { content?: unknown } }).message?.content)
    .filter((t): t is string => typeof t === 'string')
    .join('\n\n');
}

/** A paid (or free) JSON answer as a tool result: text for chat, links for media, the object as structured content. */
export function resultOf(entry: CatalogEntry, body: Record<string, unknown>, meta: Record<string, unknown>) {
  const content: ContentBlock[] = [];
  if (entry.kind === 'model' && entry.category === 'chat') {
    content.push({ type: 'text', text: chatText(body) });
  } else if (entry.kind === 'model' && entry.output !== 'json' && entry.output !== 'text') {
    for (const [i, link] of linksIn(body).entries()) {
      content.push({
        type: 'resource_link',
        uri: link.uri,
        name: `${entry.output}-${i + 1}`,
        ...(link.mimeType ? { mimeType: link.mimeType } : {}),
      });
    }
    content.push({ type: 'text', text: JSON.stringify(body) });
  } else {
    content.push({ type: 'text', text: JSON.stringify(body) });
  }
  const result: CallToolResult = {
    content,
    structuredContent: body,
    _meta: {
      ...(typeof body.costMicroUsd === 'number' ? { 'kasir/costMicroUsd': body.costMicroUsd } : {}),
      ...(body.receipt !== undefined ? { 'kasir/receipt': body.receipt } : {}),
      ...meta,
    },
  };
  return result;
}

/**
 * The small images of an image model's answer as image content, read in-process from kasir's own media route (a
 * link elsewhere, or a larger file, stays a link only).
 */
async function inlineImages(entry: CatalogEntry, result: CallToolResult, ctx: CallContext): Promise<void> {
  if (entry.kind !== 'model' || entry.output !== 'image') return;
  for (const link of linksIn(result.structuredContent)) {
    if (link.sizeBytes === undefined || link.sizeBytes > INLINE_IMAGE_MAX_BYTES) continue;
    const path = new URL(link.uri).pathname;
    if (!path.startsWith('/v1/media/')) continue;
    const res = await ctx.dispatch(path, { method: 'GET' });
    const type = (res.headers.get('content-type') ?? '').split(';')[0] ?? '';
    if (!res.ok || !type.startsWith('image/')) {
      await res.discard();
      continue;
    }
    const bytes = Buffer.from(await res.arrayBuffer());
    if (bytes.length <= INLINE_IMAGE_MAX_BYTES)
      result.content.push({ type: 'image', data: bytes.toString('base64'), mimeType: type });
  }
}

/** Runs one tool call through the app and maps its answer (a refusal before payment is thrown as a JSON-RPC error). */
export async function callEntry(
  entry: CatalogEntry,
  args: Record<string, unknown>,
  meta: Record<string, unknown> | undefined,
  ctx: CallContext,
  progress: CallProgress = {},
): Promise<CallToolResult> {
  const read = (path: string) => ctx.dispatch(path, { method: 'GET', headers: ctx.headers });
  const follow = (jobId: string) =>
    followJob(jobId, read, (body, meta) => resultOf(entry, body, meta), progress.report, progress.signal);
  // A caller that lost a long call's connection resumes it by its job id: nothing is sold again.
  const resume = meta?.[JOB_META];
  if (resume !== undefined) {
    if (!isJobId(resume)) throw new RpcError(ErrorCode.InvalidParams, `_meta.${JOB_META} is not a job id`);
    return follow(resume);
  }
  let payment: Record<string, string>;
  try {
    payment = headersFromMeta(meta);
  } catch (err) {
    throw new RpcError(ErrorCode.InvalidParams, (err as Error).message);
  }
  const long = isLongCall(entry);
  const prefer: Record<string, string> = long ? { prefer: 'respond-async' } : {};
  const { path, init } = requestOf(entry, args, { ...ctx.headers, ...payment, ...prefer });
  // A wallet or channel pays a long call within its request (a key's is a job, followed below): it says it runs.
  const stopRunning =
    long && progress.report && paysInRequest(payment) ? reportRunning(progress.report) : undefined;
  let res: Answer;
  try {
    res = await ctx.dispatch(path, init);
  } finally {
    stopRunning?.();
  }
  if (res.status === 202) {
    const accepted = (await res.json()) as { job_id?: unknown };
    if (isJobId(accepted.job_id)) {
      const result = await follow(accepted.job_id);
      const cost = result._meta?.['kasir/costMicroUsd'];
      if (!result.isError && typeof cost === 'number') ctx.jobCharged?.(cost);
      return result;
    }
  }
  const type = res.headers.get('content-type') ?? '';
  if (!/json/.test(type)) {
    const bytes = Buffer.from(await res.arrayBuffer());
    if (res.ok && /^image\//.test(type))
      return {
        content: [{ type: 'image', data: bytes.toString('base64'), mimeType: type.split(';')[0] ?? type }],
        _meta: receiptMeta(res, credentialChallengeId(meta)),
      };
    return { isError: true, content: [{ type: 'text', text: bytes.toString('utf8') }] };
  }
  const body = (await res.json()) as Record<string, unknown>;
  const paidMeta = receiptMeta(res, credentialChallengeId(meta));
  if (res.ok) {
    const result = resultOf(entry, body, paidMeta);
    await inlineImages(entry, result, ctx);
    return result;
  }
  const error = (body.error ?? {}) as { code?: string; message?: string };
  // A 402 asks for payment (or payment anew); a price above the caller's maximum is a refusal like any other.
  if (res.status === 402 && error.code !== 'price_above_max') {
    // A caller that paid by x402 is answered as the x402 MCP transport answers; any other as its endpoint answers.
    if (payment['payment-signature'] !== undefined) return x402RefusalResult(res, body);
    if (ctx.unpaidAs === 'result') return paymentRequiredResult(res, body);
    throw paymentRequiredError(res, body);
  }
  if (error.code === 'invalid_input' || error.code === 'payload_too_large') {
    throw new RpcError(ErrorCode.InvalidParams, error.message ?? 'invalid arguments', body.error);
  }
  // A refusal carries no structuredContent (that is the paid answer's, as outputSchema declares): the error body
  // is in `_meta` and its message the text.
  return {
    isError: true,
    content: [{ type: 'text', text: error.message ?? `HTTP ${res.status}` }],
    _meta: { [ERROR_META]: body.error ?? body, 'kasir/httpStatus': res.status, ...paidMeta },
  };
}
