/**
 * Fake web-search providers, each in its own wire format and with its own key check:
 *   Brave    GET /res/v1/web/search (X-Subscription-Token) → {type: 'search', query, web: {results: [{title, url, description}]}}
 *   Tavily   POST /search (Authorization: Bearer) → {query, results: [{title, url, content, score}], response_time}
 *   Exa      POST /search (x-api-key) → {requestId, results: [{id, title, url, publishedDate, text}]}
 *   SearXNG  GET /search?format=json → {query, number_of_results, results: [{url, title, content, engine}]}
 * Results are made from the query, so a test can tell which provider answered and that the query arrived.
 */
import {
  type FakeAnswer,
  type FakeJsonUpstream,
  type FakeRequest,
  startFakeJsonUpstream,
} from './json-upstream.js';

const results = (q: string, n: number) =>
  Array.from({ length: n }, (_, i) => ({
    title: `${q} — result ${i + 1}`,
    url: `https://example.org/${encodeURIComponent(q)}/${i + 1}`,
    text: `About <strong>${q}</strong>: page ${i + 1}`,
  }));

const refuse = (req: FakeRequest, ok: boolean, body: unknown): FakeAnswer | undefined =>
  ok ? undefined : { status: 401, body, headers: { 'x-path': req.path } };

export function startFakeBrave(key: string): Promise<FakeJsonUpstream> {
  const errorBody = (status: number, detail: string) => ({
    type: 'ErrorResponse',
    error: {
      id: 'c3b8a6a4-0f5e-4a8e-9b49-8f2b7e4f2b1a',
      status,
      code: status === 429 ? 'RATE_LIMITED' : 'SERVER_ERROR',
      detail,
    },
    time: 1764060000,
  });
  return startFakeJsonUpstream({
    errorBody,
    authorize: (req) =>
      refuse(
        req,
        req.headers['x-subscription-token'] === key,
        errorBody(401, 'The provided subscription token is invalid.'),
      ),
    routes: [
      {
        method: 'GET',
        path: /^\/res\/v1\/web\/search$/,
        answer(req) {
          const q = req.query.get('q') ?? '';
          const count = Number(req.query.get('count') ?? 20);
          if (q === 'nothing at all') return { body: { type: 'search', query: { original: q } } };
          return {
            body: {
              type: 'search',
              query: { original: q, more_results_available: true },
              web: {
                type: 'search',
                results: results(q, Math.min(count, 20)).map((r) => ({
                  title: r.title,
                  url: r.url,
                  description: r.text,
                  type: 'search_result',
                })),
              },
            },
          };
        },
      },
    ],
  });
}

export function startFakeTavily(key: string): Promise<FakeJsonUpstream> {
  const errorBody = (_status: number, error: string) => ({ detail: { error } });
  return startFakeJsonUpstream({
    errorBody,
    authorize: (req) =>
      refuse(
        req,
        req.headers.authorization === `Bearer ${key}`,
        errorBody(401, 'Unauthorized: missing or invalid API key.'),
      ),
    routes: [
      {
        method: 'POST',
        path: /^\/search$/,
        answer(req) {
          const body = req.body as { query: string; max_results?: number };
          return {
            body: {
              query: body.query,
              follow_up_questions: null,
              answer: null,
              images: [],
              results: results(body.query, body.max_results ?? 5).map((r, i) => ({
                title: r.title,
                url: r.url,
                content: r.text.replace(/<\/?strong>/g, ''),
                score: 0.9 - i * 0.01,
                raw_content: null,
              })),
              response_time: 1.02,
            },
          };
        },
      },
    ],
  });
}

export function startFakeExa(key: string): Promise<FakeJsonUpstream> {
  const errorBody = (_status: number, error: string) => ({
    requestId: 'b7e1a3c2d4',
    error,
    tag: 'INVALID_REQUEST',
  });
  return startFakeJsonUpstream({
    errorBody,
    authorize: (req) => refuse(req, req.headers['x-api-key'] === key, errorBody(401, 'Invalid API key')),
    routes: [
      {
        method: 'POST',
        path: /^\/search$/,
        answer(req) {
          const body = req.body as { query: string; numResults?: number };
          return {
            body: {
              requestId: 'b7e1a3c2d4e5f6a7',
              resolvedSearchType: 'neural',
              results: results(body.query, body.numResults ?? 10).map((r, i) => ({
                id: r.url,
                title: r.title,
                url: r.url,
                publishedDate: '2026-11-01T00:00:00.000Z',
                author: null,
                score: 0.5 - i * 0.01,
                text: r.text.replace(/<\/?strong>/g, ''),
              })),
              costDollars: { total: 0.005 },
            },
          };
        },
      },
    ],
  });
}

export function startFakeSearxng(): Promise<FakeJsonUpstream> {
  return startFakeJsonUpstream({
    errorBody: (_status, message) => message,
    routes: [
      {
        method: 'GET',
        path: /^\/search$/,
        answer(req) {
          if (req.query.get('format') !== 'json') return { status: 403, raw: '<html>403 Forbidden</html>' };
          const q = req.query.get('q') ?? '';
          return {
            body: {
              query: q,
              number_of_results: 0,
              results: results(q, 25).map((r) => ({
                url: r.url,
                title: r.title,
                content: r.text.replace(/<\/?strong>/g, ''),
                engine: 'duckduckgo',
                engines: ['duckduckgo'],
                score: 1,
              })),
              answers: [],
              corrections: [],
              infoboxes: [],
              suggestions: [],
              unresponsive_engines: [],
            },
          };
        },
      },
    ],
  });
}
