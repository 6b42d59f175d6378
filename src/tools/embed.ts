/**
 * tools/embed: embedding vectors from the deployment's one embedding model (EMBED_PROVIDER, EMBED_MODEL), so every
 * vector a deployment hands out lives in one space; the default model is multilingual.
 */
import { UpstreamError } from '../http/upstream-error.js';
import type { ToolFactory } from './types.js';
import { openAiCompatible } from './upstreams/openai-compatible.js';

/** A model's vectors for a text never change; an hour keeps small repeated calls cheap (large answers are not kept). */
const CACHE_TTL_MS = 60 * 60 * 1000;

interface EmbeddingsAnswer {
  model?: string;
  data?: Array<{ index?: number; embedding?: unknown }>;
}

export const embed: ToolFactory = (deps) => {
  const { embedProvider, embedModel } = deps.config.tools;
  const api = openAiCompatible(deps, embedProvider);
  if ('missing' in api) return api;
  return {
    cacheTtlMs: CACHE_TTL_MS,
    async run(input, call) {
      const texts = Array.isArray(input.texts) ? (input.texts as string[]) : [String(input.text)];
      const answer = await api.post<EmbeddingsAnswer>(
        '/embeddings',
        { model: embedModel, input: texts },
        call.signal,
      );
      const data = Array.isArray(answer?.data)
        ? [...answer.data].sort((a, b) => (a.index ?? 0) - (b.index ?? 0))
        : [];
      const embeddings = data.map((d) => d.embedding);
      const dimensions = Array.isArray(embeddings[0]) ? embeddings[0].length : 0;
      const sound =
        embeddings.length === texts.length &&
        dimensions > 0 &&
        embeddings.every(
          (e) => Array.isArray(e) && e.length === dimensions && e.every((x) => typeof x === 'number'),
        );
      if (!sound) {
        throw new UpstreamError(
          'upstream',
          `${embedProvider} answered /embeddings without one vector per text`,
          {
            beforeFirstByte: true,
          },
        );
      }
      return { model: answer.model ?? embedModel, count: embeddings.length, dimensions, embeddings };
    },
  };
};
