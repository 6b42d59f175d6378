/** The tool offer: a paid tool's module (src/tools) run through the checkout, its answer fields spread beside `tool`. */
import { createHash } from 'node:crypto';
import type { ToolEntry } from '../catalog/types.js';
import type { Offer } from '../checkout/offer.js';
import { ApiError } from '../http/errors.js';
import type { KeyValue } from '../store/kv/index.js';
import type { Tool } from '../tools/types.js';

/** The tool's short name: `tools/search` → `search`. */
export function toolName(entry: ToolEntry): string {
  return entry.id.slice('tools/'.length);
}

/**
 * The cache key of one call: the tool and what the tool says identifies the answer, by default the values of its
 * schema's own fields (extra properties, which the schema allows, do not change the answer and do not split the
 * cache).
 */
function cacheKey(entry: ToolEntry, tool: Tool, input: Record<string, unknown>): string {
  const fields = Object.keys((entry.input.properties as Record<string, unknown> | undefined) ?? {}).sort();
  const own = tool.cacheKey ? tool.cacheKey(input) : fields.map((f) => [f, input[f] ?? null]);
  return `tool-answer:${entry.id}:${createHash('sha256').update(JSON.stringify(own)).digest('base64url')}`;
}

/**
 * The largest answer kept (in characters): a paid call must not buy hours of the key-value store's memory (100
 * embedding vectors are megabytes), so larger answers are answered fresh each time.
 */
const CACHED_ANSWER_LIMIT = 256 * 1024;

const degraded = (body: Record<string, unknown>) => Array.isArray(body.degraded) && body.degraded.length > 0;

export function createToolOffer(entry: ToolEntry, built: Tool | { missing: string }, kv: KeyValue): Offer {
  if ('missing' in built) {
    const message = `tool ${entry.id} is not available on this server: it needs ${built.missing}`;
    return {
      entry,
      preflight() {
        throw new ApiError('not_configured', message, { tool: entry.id });
      },
      run: () => Promise.reject(new ApiError('not_configured', message, { tool: entry.id })),
    };
  }
  const ttl = built.cacheTtlMs;
  return {
    entry,
    ...(built.preflight ? { preflight: built.preflight.bind(built) } : {}),
    async run(input, ctx) {
      const call = { signal: ctx.signal, requestId: ctx.requestId };
      if (!ttl) return { kind: 'json', body: await built.run(input, call) };
      const key = cacheKey(entry, built, input);
      // A store that cannot answer only costs the cache, never the call.
      const cached = await kv.get(key).catch(() => null);
      if (cached !== null) {
        return {
          kind: 'json',
          body: JSON.parse(cached) as Record<string, unknown>,
          headers: { 'x-cache': 'hit' },
        };
      }
      const body = await built.run(input, call);
      const text = JSON.stringify(body);
      if (!degraded(body) && text.length <= CACHED_ANSWER_LIMIT)
        await kv.set(key, text, ttl).catch(() => undefined);
      return { kind: 'json', body, headers: { 'x-cache': 'miss' } };
    },
  };
}
