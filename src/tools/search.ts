/**
 * tools/search: web search through the configured providers in order; one that fails, times out or is
 * rate-limiting is skipped for the next, and the first answer (even an empty one) is the result.
 */
import { UpstreamError } from '../http/upstream-error.js';
import { searchProviders } from './search/providers.js';
import type { ToolFactory } from './types.js';

/** The web does not change by the minute for most queries; ten minutes keeps repeated calls cheap upstream. */
const CACHE_TTL_MS = 10 * 60 * 1000;

export const search: ToolFactory = (deps) => {
  const providers = searchProviders(deps.config.tools, deps.http);
  if (!providers.length) return { missing: 'BRAVE_API_KEY, TAVILY_API_KEY, EXA_API_KEY or SEARXNG_URL' };
  return {
    cacheTtlMs: CACHE_TTL_MS,
    async run(input, call) {
      const query = {
        q: String(input.q).trim(),
        count: Number(input.count ?? 10),
        country: typeof input.country === 'string' ? input.country : undefined,
        lang: typeof input.lang === 'string' ? input.lang : undefined,
      };
      let last: unknown;
      for (const provider of providers) {
        try {
          const results = (await provider.search(query, call.signal)).slice(0, query.count);
          return { query: query.q, provider: provider.name, count: results.length, results };
        } catch (err) {
          if (!(err instanceof UpstreamError)) throw err;
          deps.log.warn(
            { provider: provider.name, err: err.message },
            'search provider failed; trying the next',
          );
          last = err;
        }
      }
      throw last;
    },
  };
};
