/**
 * The web-search providers, each in its own wire format, behind one signature: Brave (GET /res/v1/web/search),
 * Tavily (POST /search), Exa (POST /search) and a SearXNG instance (GET /search?format=json).
 */
import type { SearchProviderName, ToolsConfig } from '../../config/tools.js';
import type { CallSignal } from '../../http/call-signal.js';
import { UpstreamError } from '../../http/upstream-error.js';
import { JsonUpstream } from '../upstreams/json-upstream.js';
import type { ToolHttp } from '../upstreams/tool-http.js';

export interface SearchQuery {
  q: string;
  count: number;
  country?: string | undefined;
  lang?: string | undefined;
}

export interface SearchHit {
  title: string;
  url: string;
  snippet: string;
}

export interface SearchProvider {
  name: SearchProviderName;
  search(query: SearchQuery, signal: CallSignal): Promise<SearchHit[]>;
}

/** Snippets as plain text: Brave marks matches with <strong>, SearXNG may carry entities. */
const plain = (text: unknown) =>
  String(text ?? '')
    .replace(/<[^>]*>/g, '')
    .replace(/&quot;/g, '"')
    .replace(/&#39;|&#x27;/g, "'")
    .replace(/&amp;/g, '&')
    .replace(/\s+/g, ' ')
    .trim();

const hits = (
  provider: string,
  list: unknown,
  snippetOf: (r: Record<string, unknown>) => unknown,
): SearchHit[] => {
  if (!Array.isArray(list)) {
    throw new UpstreamError('upstream', `${provider} answered without a result list`, {
      beforeFirstByte: true,
    });
  }
  return list
    .filter((r): r is Record<string, unknown> => typeof r?.url === 'string')
    .map((r) => ({ title: plain(r.title), url: String(r.url), snippet: plain(snippetOf(r)) }));
};

/** The providers configured here, in SEARCH_PROVIDERS order. */
export function searchProviders(tools: ToolsConfig, http: ToolHttp): SearchProvider[] {
  const { keys, searxngUrl, order } = tools.search;
  const built: Partial<Record<SearchProviderName, SearchProvider>> = {};
  if (keys.brave) {
    const api = new JsonUpstream('brave', tools.baseUrls.brave, http, {
      headers: { 'x-subscription-token': keys.brave },
      secret: keys.brave,
    });
    built.brave = {
      name: 'brave',
      async search(q, signal) {
        const answer = await api.get<{ web?: { results?: unknown } }>(
          '/res/v1/web/search',
          {
            q: q.q,
            count: q.count,
            country: q.country?.toLowerCase(),
            search_lang: q.lang?.slice(0, 2).toLowerCase(),
          },
          signal,
        );
        // No `web` section is Brave's way of saying nothing matched.
        return answer?.web ? hits('brave', answer.web.results, (r) => r.description) : [];
      },
    };
  }
  if (keys.tavily) {
    const api = new JsonUpstream('tavily', tools.baseUrls.tavily, http, {
      headers: { authorization: `Bearer ${keys.tavily}` },
      secret: keys.tavily,
    });
    built.tavily = {
      name: 'tavily',
      async search(q, signal) {
        const answer = await api.post<{ results?: unknown }>(
          '/search',
          { query: q.q, max_results: q.count, search_depth: 'basic', include_answer: false },
          signal,
        );
        return hits('tavily', answer?.results, (r) => r.content);
      },
    };
  }
  if (keys.exa) {
    const api = new JsonUpstream('exa', tools.baseUrls.exa, http, {
      headers: { 'x-api-key': keys.exa },
      secret: keys.exa,
    });
    built.exa = {
      name: 'exa',
      async search(q, signal) {
        const answer = await api.post<{ results?: unknown }>(
          '/search',
          {
            query: q.q,
            numResults: q.count,
            ...(q.country ? { userLocation: q.country.toUpperCase() } : {}),
            contents: { text: { maxCharacters: 300 } },
          },
          signal,
        );
        return hits('exa', answer?.results, (r) => r.text);
      },
    };
  }
  if (searxngUrl) {
    const api = new JsonUpstream('searxng', searxngUrl, http);
    built.searxng = {
      name: 'searxng',
      async search(q, signal) {
        const answer = await api.get<{ results?: unknown }>(
          '/search',
          { q: q.q, format: 'json', pageno: 1, ...(q.lang ? { language: q.lang } : {}) },
          signal,
        );
        return hits('searxng', answer?.results, (r) => r.content);
      },
    };
  }
  return order.map((name) => built[name]).filter((p): p is SearchProvider => p !== undefined);
}
