/**
 * A fake provider's model-list endpoint, in each provider's real format and auth rule:
 *   - openai:    GET /v1/models, `Authorization: Bearer`, `{ object: "list", data: [{ id, object, created, owned_by }] }`
 *   - together:  GET /v1/models, Bearer, the bare array `[{ id, object, created, type, display_name, context_length }]`
 *   - anthropic: GET /v1/models, `x-api-key` + `anthropic-version`, paged by `limit` (1..1000) and `after_id`:
 *                `{ data: [{ type: "model", id, display_name, created_at }], has_more, first_id, last_id }`
 *   - gemini:    GET /v1beta/models, `x-goog-api-key` (or `?key=`), paged by `pageSize` and `pageToken`:
 *                `{ models: [{ name: "models/…", displayName, inputTokenLimit, supportedGenerationMethods }], nextPageToken }`
 * A wrong key gets the provider's own 401/400 body. `pageCap` caps a page below what the client asks, so paging shows.
 */
import { createServer } from 'node:http';
import { closeServer, listen, sendJson } from './http.js';

export type ListFlavour = 'openai' | 'together' | 'anthropic' | 'gemini';

export interface FakeModelList {
  /** The base URL to configure (`…/v1` for the OpenAI-compatible ones, the origin for Anthropic and Gemini). */
  url: string;
  requests: Array<{ path: string; headers: Record<string, string | string[] | undefined> }>;
  close(): Promise<void>;
}

export async function startFakeModelList(
  flavour: ListFlavour,
  options: { apiKey: string; models: string[]; pageCap?: number },
): Promise<FakeModelList> {
  const requests: FakeModelList['requests'] = [];
  const cap = options.pageCap ?? 1000;
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://fake');
    requests.push({ path: url.pathname + url.search, headers: req.headers });
    if (flavour === 'openai' || flavour === 'together') {
      if (url.pathname !== '/v1/models') return sendJson(res, 404, { error: { message: 'not found' } });
      if (req.headers.authorization !== `Bearer ${options.apiKey}`)
        return sendJson(res, 401, {
          error: {
            message: 'Incorrect API key provided.',
            type: 'invalid_request_error',
            param: null,
            code: 'invalid_api_key',
          },
        });
      if (flavour === 'together')
        return sendJson(
          res,
          200,
          options.models.map((id) => ({
            id,
            object: 'model',
            created: 1_730_000_000,
            type: 'chat',
            display_name: id,
            organization: id.split('/')[0],
            context_length: 131_072,
            pricing: { input: 0.88, output: 0.88, hourly: 0, base: 0, finetune: 0 },
          })),
        );
      return sendJson(res, 200, {
        object: 'list',
        data: options.models.map((id) => ({
          id,
          object: 'model',
          created: 1_730_000_000,
          owned_by: 'system',
        })),
      });
    }
    if (flavour === 'anthropic') {
      if (url.pathname !== '/v1/models')
        return sendJson(res, 404, {
          type: 'error',
          error: { type: 'not_found_error', message: 'Not found' },
        });
      if (req.headers['x-api-key'] !== options.apiKey)
        return sendJson(res, 401, {
          type: 'error',
          error: { type: 'authentication_error', message: 'invalid x-api-key' },
        });
      if (!req.headers['anthropic-version'])
        return sendJson(res, 400, {
          type: 'error',
          error: { type: 'invalid_request_error', message: 'anthropic-version: header is required' },
        });
      const limit = Math.min(Number(url.searchParams.get('limit') ?? 20), 1000, cap);
      const after = url.searchParams.get('after_id');
      const start = after ? options.models.indexOf(after) + 1 : 0;
      const page = options.models.slice(start, start + limit);
      return sendJson(res, 200, {
        data: page.map((id) => ({ type: 'model', id, display_name: id, created_at: '2026-05-28T00:00:00Z' })),
        has_more: start + limit < options.models.length,
        first_id: page[0] ?? null,
        last_id: page.at(-1) ?? null,
      });
    }
    if (url.pathname !== '/v1beta/models')
      return sendJson(res, 404, { error: { code: 404, message: 'Not found', status: 'NOT_FOUND' } });
    if ((req.headers['x-goog-api-key'] ?? url.searchParams.get('key')) !== options.apiKey)
      return sendJson(res, 400, {
        error: {
          code: 400,
          message: 'API key not valid. Please pass a valid API key.',
          status: 'INVALID_ARGUMENT',
          details: [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'API_KEY_INVALID' }],
        },
      });
    const size = Math.min(Number(url.searchParams.get('pageSize') ?? 50), 1000, cap);
    const start = Number(url.searchParams.get('pageToken') ?? 0);
    const page = options.models.slice(start, start + size);
    const next = start + size < options.models.length ? String(start + size) : undefined;
    return sendJson(res, 200, {
      models: page.map((id) => ({
        name: `models/${id}`,
        version: '001',
        displayName: id,
        inputTokenLimit: 1_048_576,
        outputTokenLimit: 65_536,
        supportedGenerationMethods: ['generateContent', 'countTokens'],
      })),
      ...(next ? { nextPageToken: next } : {}),
    });
  });
  const base = await listen(server);
  return {
    url: flavour === 'openai' || flavour === 'together' ? `${base}/v1` : base,
    requests,
    close: () => closeServer(server),
  };
}
