/**
 * The paid-tool port: each tool of `POST /v1/tools/{name}` is one module (`tools/<name>.ts`) exporting a factory
 * that builds it from the server's configuration, or says which setting it lacks. The checkout validates the input
 * against the catalog's schema and moves the money; a tool only does the work.
 */
import type { Catalog } from '../catalog/types.js';
import type { Config } from '../config/load.js';
import type { SafeFetcher } from '../fetch/safe-fetch.js';
import type { CallSignal } from '../http/call-signal.js';
import type { Logger } from '../http/logger.js';
import type { Media } from '../media/service.js';
import type { ChatRuntime } from '../providers/chat-runtime.js';
import type { KeyValue } from '../store/kv/index.js';
import type { ToolHttp } from './upstreams/tool-http.js';

/**
 * What tools may use: the configuration, the media store (results kasir hosts), the safe fetcher (every URL fetched
 * on a caller's behalf), the chat models, the log, the key-value store (answers cached across instances), the
 * guarded outbound HTTP of the data tools and the catalog (the chat models a tool may call).
 */
export interface ToolDeps {
  config: Config;
  catalog: Catalog;
  media: Media;
  fetcher: SafeFetcher;
  chat: ChatRuntime;
  log: Logger;
  kv: KeyValue;
  http: ToolHttp;
}

export interface ToolCall {
  /** Aborted when the caller goes away; pass it to every upstream request. */
  signal: CallSignal;
  requestId: string;
}

export interface Tool {
  /**
   * How long an answer stays fresh (ms): calls with the same input within it are answered from the key-value store
   * (still paid; `X-Cache: hit`). An answer naming `degraded` sections is not kept. Unset = never cached.
   */
  cacheTtlMs?: number;
  /**
   * What identifies an answer in the cache, when inputs written differently ask the same thing (`example.com` and
   * `https://EXAMPLE.com/`); by default the values of the schema's own fields. May throw an ApiError for bad input.
   */
  cacheKey?(input: Record<string, unknown>): unknown;
  /**
   * Runs one validated call and returns the tool's own answer fields (the checkout adds `tool`, `costMicroUsd` and
   * the receipt). Throws UpstreamError when an upstream fails (nothing is charged) or ApiError for input the
   * schema could not catch (a 400, nothing charged).
   */
  run(input: Record<string, unknown>, call: ToolCall): Promise<Record<string, unknown>>;
  /**
   * Throws an ApiError when the call cannot run now (a 503 `overloaded` when the worker threads' queue is full);
   * called before any payment.
   */
  preflight?(input: Record<string, unknown>): void;
}

/**
 * Builds a tool for this server, or names what it lacks (`{ missing: 'BRAVE_API_KEY or TAVILY_API_KEY' }`): such
 * a tool answers 503 before any payment and `/v1/tools` lists it as unavailable.
 */
export type ToolFactory = (deps: ToolDeps) => Tool | { missing: string };
