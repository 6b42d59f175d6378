/**
 * A fake OpenAI-compatible text API: POST /v1/embeddings ({object: 'list', data: [{object: 'embedding', index,
 * embedding}], model, usage}; 1536 dimensions like text-embedding-3-small, each vector derived from its text so
 * equal texts get equal vectors) and POST /v1/moderations ({id, model, results: [{flagged, categories,
 * category_scores, category_applied_input_types}]}, flagging texts that mention killing (violence) or hate).
 * A bad key is OpenAI's 401 invalid_api_key.
 */
import { createHash } from 'node:crypto';
import { type FakeJsonUpstream, startFakeJsonUpstream } from './json-upstream.js';
import { openAiErrorBody } from './openai-upstream.js';

const DIMENSIONS = 1536;
const CATEGORIES = [
  'harassment',
  'harassment/threatening',
  'hate',
  'hate/threatening',
  'illicit',
  'illicit/violent',
  'self-harm',
  'self-harm/intent',
  'self-harm/instructions',
  'sexual',
  'sexual/minors',
  'violence',
  'violence/graphic',
];

function vectorOf(text: string): number[] {
  const seed = createHash('sha256').update(text).digest();
  return Array.from({ length: DIMENSIONS }, (_, i) =>
    Number((((seed[i % 32] as number) - 128) / 1280 + i / 1e6).toFixed(7)),
  );
}

function judge(text: string): Record<string, boolean> {
  const lower = text.toLowerCase();
  const on = new Set<string>();
  if (/\bkill/.test(lower)) on.add('violence');
  if (/\bhate\b/.test(lower)) on.add('hate').add('harassment');
  return Object.fromEntries(CATEGORIES.map((c) => [c, on.has(c)]));
}

export function startFakeOpenAiText(apiKey: string): Promise<FakeJsonUpstream> {
  return startFakeJsonUpstream({
    basePath: '/v1',
    errorBody: (status, message) => openAiErrorBody(status, message),
    authorize: (req) =>
      req.headers.authorization === `Bearer ${apiKey}`
        ? undefined
        : { status: 401, body: openAiErrorBody(401) },
    routes: [
      {
        method: 'POST',
        path: /^\/embeddings$/,
        answer(req) {
          const { model, input } = req.body as { model: string; input: string | string[] };
          const texts = Array.isArray(input) ? input : [input];
          const tokens = texts.reduce((n, t) => n + Math.ceil(t.length / 4), 0);
          return {
            body: {
              object: 'list',
              data: texts.map((t, index) => ({ object: 'embedding', index, embedding: vectorOf(t) })),
              model,
              usage: { prompt_tokens: tokens, total_tokens: tokens },
            },
          };
        },
      },
      {
        method: 'POST',
        path: /^\/moderations$/,
        answer(req) {
          const { model, input } = req.body as { model: string; input: string };
          const categories = judge(input);
          return {
            body: {
              id: 'modr-5f1c2b9e8a',
              model: `${model}-2024-09-26`,
              results: [
                {
                  flagged: Object.values(categories).some(Boolean),
                  categories,
                  category_scores: Object.fromEntries(
                    CATEGORIES.map((c) => [c, categories[c] ? 0.91 : 0.0004]),
                  ),
                  category_applied_input_types: Object.fromEntries(CATEGORIES.map((c) => [c, ['text']])),
                },
              ],
            },
          };
        },
      },
    ],
  });
}
