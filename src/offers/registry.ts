/**
 * The offer registry: how each catalog entry runs on this server (chat models through their providers, media
 * models through their adapters, tools through their modules). An entry with no runnable offer still gets one, whose preflight answers 503
 * before any payment is asked for; `/v1/models`' `available` comes from here too.
 */
import { type CatalogEntry, idField } from '../catalog/types.js';
import type { Offer } from '../checkout/offer.js';
import { ApiError } from '../http/errors.js';
import type { MediaProviders } from '../providers/media/registry.js';
import { TOOLS } from '../tools/index.js';
import type { Tool, ToolDeps } from '../tools/types.js';
import { type ChatRuntime, chatModelAvailable, createChatOffer } from './chat.js';
import { createMediaOffer, type MediaRuntime } from './media.js';
import { createRecipeOffer } from './recipe.js';
import { createToolOffer, toolName } from './tool.js';

export interface OfferRegistry {
  /** The entry's offer, built once. */
  offerFor(entry: CatalogEntry): Offer;
  /** True when the entry can run on this server as configured. */
  available(entry: CatalogEntry): boolean;
}

/** An entry this server cannot run: every call is a 503 before any challenge. */
function unavailableOffer(entry: CatalogEntry): Offer {
  const what = `${idField(entry)} ${entry.id}`;
  return {
    entry,
    preflight() {
      throw new ApiError(
        'not_configured',
        `${what} cannot run on this server: its upstream adapter is not installed`,
        {
          [idField(entry)]: entry.id,
        },
      );
    },
    run() {
      return Promise.reject(new ApiError('not_configured', `${what} cannot run on this server`));
    },
  };
}

export function createOfferRegistry(
  deps: ToolDeps & { chat: ChatRuntime; mediaProviders: MediaProviders; mediaRuntime: MediaRuntime },
): OfferRegistry {
  const offers = new Map<string, Offer>();
  // Each tool is built once from the configuration: a Tool, or what it lacks.
  const tools = new Map<string, Tool | { missing: string }>();
  const toolOf = (entry: CatalogEntry & { kind: 'tool' }) => {
    const name = toolName(entry);
    const factory = TOOLS[name];
    if (!factory) return undefined;
    let built = tools.get(name);
    if (!built) {
      built = factory(deps);
      tools.set(name, built);
    }
    return built;
  };
  const offerFor = (entry: CatalogEntry): Offer => {
    let offer = offers.get(entry.id);
    if (!offer) {
      offer = build(entry);
      offers.set(entry.id, offer);
    }
    return offer;
  };
  const build = (entry: CatalogEntry): Offer => {
    if (entry.kind === 'model') {
      if (entry.category === 'chat') return createChatOffer(entry, deps.chat);
      const provider = deps.mediaProviders.forEntry(entry);
      return provider ? createMediaOffer(entry, provider, deps.mediaRuntime) : unavailableOffer(entry);
    }
    if (entry.kind === 'recipe') return createRecipeOffer(entry, { catalog: deps.catalog, offerFor });
    const built = toolOf(entry);
    return built ? createToolOffer(entry, built, deps.kv) : unavailableOffer(entry);
  };
  const available = (entry: CatalogEntry): boolean => {
    if (entry.kind === 'model') {
      if (entry.category === 'chat') return chatModelAvailable(entry, deps.chat.providers);
      const provider = deps.mediaProviders.forEntry(entry);
      return provider !== undefined && provider.missing === null;
    }
    if (entry.kind === 'recipe') {
      // As sold by default: both of its own steps' models can run here.
      return [entry.image.model, entry.video.model].every((id) => {
        const step = deps.catalog.find(id);
        return step !== undefined && available(step);
      });
    }
    const built = toolOf(entry);
    return built !== undefined && !('missing' in built);
  };
  return { offerFor, available };
}
