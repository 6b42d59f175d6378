/**
 * Asks an upstream which models it serves, in that provider's own list format: the OpenAI-compatible
 * `GET {base}/models` (`{object: "list", data: [...]}`, or Together's bare array), Anthropic's paged
 * `GET /v1/models`, Gemini's paged `GET /v1beta/models`. Read-only and free; used to list self-hosted models and to
 * tell which catalog models a configured provider no longer serves.
 */
import type { ProviderConfig, ProviderName } from '../config/providers.js';
import { CHAT_WIRE_FORMAT } from './registry.js';

/** One model as its server lists it. */
export interface ListedModel {
  /** The id the server is called with (`llama3.2:latest`, `gpt-4.1`, `gemini-2.5-flash`). */
  id: string;
  /** Unix seconds, when the server says. */
  created?: number;
  ownedBy?: string;
  /** Context window in tokens, when the server says (vLLM `max_model_len`, llama.cpp `meta.n_ctx_train`). */
  contextLength?: number;
}

/** The list formats kasir reads. */
export type ListFormat = 'openai-compatible' | 'anthropic' | 'gemini';

/** Which list format each provider with a model list speaks: its chat wire format's (providers not named there have none kasir reads). */
export const MODEL_LIST_FORMAT: Partial<Record<ProviderName, ListFormat>> = CHAT_WIRE_FORMAT;

/** Thrown when a list cannot be read; the message names the provider and says why, never the key. */
export class ModelListError extends Error {
  constructor(provider: string, why: string) {
    super(`${provider}: ${why}`);
    this.name = 'ModelListError';
  }
}

/** The most pages read from one paged list (Anthropic, Gemini), so a server that pages forever cannot hold kasir. */
const MAX_PAGES = 20;

async function getJson(provider: string, url: URL, headers: Record<string, string>, timeoutMs: number) {
  let res: Response;
  try {
    res = await fetch(url, {
      headers: { accept: 'application/json', ...headers },
      signal: AbortSignal.timeout(timeoutMs),
    });
  } catch (err) {
    const cause = (err as { cause?: { code?: string } }).cause?.code;
    const timedOut = (err as Error).name === 'TimeoutError';
    throw new ModelListError(
      provider,
      timedOut
        ? `no answer within ${timeoutMs} ms`
        : `cannot reach ${url.origin}${cause ? ` (${cause})` : ''}`,
    );
  }
  const text = await res.text();
  if (!res.ok) throw new ModelListError(provider, `GET ${url.pathname} answered HTTP ${res.status}`);
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new ModelListError(provider, `GET ${url.pathname} answered something that is not JSON`);
  }
}

const record = (v: unknown): Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
const positive = (v: unknown) => (typeof v === 'number' && Number.isInteger(v) && v > 0 ? v : undefined);

/** One row of an OpenAI-compatible list, with what vLLM and llama.cpp server add. */
function openAiRow(raw: unknown): ListedModel | undefined {
  const row = record(raw);
  if (typeof row.id !== 'string' || row.id === '') return undefined;
  const contextLength =
    positive(row.max_model_len) ?? positive(record(row.meta).n_ctx_train) ?? positive(row.context_length);
  return {
    id: row.id,
    ...(positive(row.created) ? { created: row.created as number } : {}),
    ...(typeof row.owned_by === 'string' ? { ownedBy: row.owned_by } : {}),
    ...(contextLength ? { contextLength } : {}),
  };
}

async function listOpenAiCompatible(name: string, settings: ProviderConfig, timeoutMs: number) {
  const headers: Record<string, string> = settings.apiKey
    ? { authorization: `Bearer ${settings.apiKey}` }
    : {};
  const body = await getJson(name, new URL(`${settings.baseUrl}/models`), headers, timeoutMs);
  // `{ object: "list", data: [...] }` everywhere, except Together, which answers the array itself.
  const rows = Array.isArray(body) ? body : record(body).data;
  if (!Array.isArray(rows)) throw new ModelListError(name, 'GET /models answered no `data` list');
  return rows.flatMap((r) => openAiRow(r) ?? []);
}

async function listAnthropic(name: string, settings: ProviderConfig, timeoutMs: number) {
  const headers = { 'x-api-key': settings.apiKey ?? '', 'anthropic-version': '2023-06-01' };
  const out: ListedModel[] = [];
  let after: string | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const url = new URL(`${settings.baseUrl}/v1/models`);
    url.searchParams.set('limit', '1000');
    if (after) url.searchParams.set('after_id', after);
    const body = record(await getJson(name, url, headers, timeoutMs));
    if (!Array.isArray(body.data)) throw new ModelListError(name, 'GET /v1/models answered no `data` list');
    for (const raw of body.data) {
      const row = record(raw);
      if (typeof row.id !== 'string') continue;
      const created = typeof row.created_at === 'string' ? Date.parse(row.created_at) : Number.NaN;
      out.push({
        id: row.id,
        ownedBy: 'anthropic',
        ...(created > 0 ? { created: Math.floor(created / 1000) } : {}),
      });
    }
    if (body.has_more !== true || typeof body.last_id !== 'string') break;
    after = body.last_id;
  }
  return out;
}

async function listGemini(name: string, settings: ProviderConfig, timeoutMs: number) {
  const headers = { 'x-goog-api-key': settings.apiKey ?? '' };
  const out: ListedModel[] = [];
  let token: string | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const url = new URL(`${settings.baseUrl}/v1beta/models`);
    url.searchParams.set('pageSize', '1000');
    if (token) url.searchParams.set('pageToken', token);
    const body = record(await getJson(name, url, headers, timeoutMs));
    if (!Array.isArray(body.models))
      throw new ModelListError(name, 'GET /v1beta/models answered no `models` list');
    for (const raw of body.models) {
      const row = record(raw);
      if (typeof row.name !== 'string') continue;
      const contextLength = positive(row.inputTokenLimit);
      out.push({
        id: row.name.replace(/^models\//, ''),
        ownedBy: 'google',
        ...(contextLength ? { contextLength } : {}),
      });
    }
    if (typeof body.nextPageToken !== 'string' || body.nextPageToken === '') break;
    token = body.nextPageToken;
  }
  return out;
}

/** The models `name` serves, read from its list endpoint with its configured key and base URL. */
export function listModels(
  name: string,
  format: ListFormat,
  settings: ProviderConfig,
  timeoutMs: number,
): Promise<ListedModel[]> {
  if (format === 'anthropic') return listAnthropic(name, settings, timeoutMs);
  if (format === 'gemini') return listGemini(name, settings, timeoutMs);
  return listOpenAiCompatible(name, settings, timeoutMs);
}
