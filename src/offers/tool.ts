/** The tool offer: a paid tool's module (src/tools) run through the checkout, its answer fields spread beside `tool`. */
import type { ToolEntry } from '../catalog/types.js';
import type { Offer } from '../checkout/offer.js';
import { ApiError } from '../http/errors.js';
import type { Tool } from '../tools/types.js';

/** The tool's short name: `tools/search` → `search`. */
export function toolName(entry: ToolEntry): string {
  return entry.id.slice('tools/'.length);
}

export function createToolOffer(entry: ToolEntry, built: Tool | { missing: string }): Offer {
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
  return {
    entry,
    async run(input, ctx) {
      const body = await built.run(input, { signal: ctx.signal, requestId: ctx.requestId });
      return { kind: 'json', body };
    },
  };
}
