/**
 * tools/moderate: a moderation model's judgement of a text (MODERATION_PROVIDER's /moderations, MODERATION_MODEL):
 * whether it is flagged and for which categories. A model judgement, not a legal determination.
 */
import { UpstreamError } from '../http/upstream-error.js';
import type { ToolFactory } from './types.js';
import { openAiCompatible } from './upstreams/openai-compatible.js';

/** The model's verdict on one text does not change. */
const CACHE_TTL_MS = 24 * 60 * 60 * 1000;

interface ModerationAnswer {
  model?: string;
  results?: Array<{ flagged?: unknown; categories?: Record<string, unknown> }>;
}

export const moderate: ToolFactory = (deps) => {
  const { moderationProvider, moderationModel } = deps.config.tools;
  const api = openAiCompatible(deps, moderationProvider);
  if ('missing' in api) return api;
  return {
    cacheTtlMs: CACHE_TTL_MS,
    async run(input, call) {
      const text = String(input.text);
      const answer = await api.post<ModerationAnswer>(
        '/moderations',
        { model: moderationModel, input: text },
        call.signal,
      );
      const result = answer?.results?.[0];
      if (!result || typeof result.flagged !== 'boolean' || typeof result.categories !== 'object') {
        throw new UpstreamError('upstream', `${moderationProvider} answered /moderations without a result`, {
          beforeFirstByte: true,
        });
      }
      const categories = Object.entries(result.categories)
        .filter(([, on]) => on === true)
        .map(([name]) => name);
      return {
        model: answer.model ?? moderationModel,
        flagged: result.flagged,
        categories,
        verdict: result.flagged ? `flagged: ${categories.join(', ') || 'unspecified'}` : 'not flagged',
        chars: [...text].length,
      };
    },
  };
};
