/**
 * The offer registry: how each catalog entry runs on this server (chat models through their providers, media
 * models through their adapters, tools and free lookups through their modules). An entry with no runnable offer still gets one, whose preflight answers 503
 * before any payment is asked for; `/v1/models`' `available` comes from here too.
 */
import { isRetired, retiredError } from '../catalog/lifecycle.js';
import { type CatalogEntry, idField } from '../catalog/types.js';
import type { Offer } from '../checkout/offer.js';
import { PROVIDER_ENV } from '../config/providers.js';
import { ApiError } from '../http/errors.js';
import { LOOKUPS } from '../lookups/index.js';
import type { ChatRuntime } from '../providers/chat-runtime.js';
import type { MediaProviders } from '../providers/media/registry.js';
import { chatModelAvailable } from '../providers/registry.js';
import { TOOLS } from '../tools/index.js';
import type { Tool, ToolDeps } from '../tools/types.js';
import { createChatOffer } from './chat.js';
import { createLookupOffer, lookupName } from './lookup.js';
import { createMediaOffer, type MediaRuntime } from './media.js';
import { createRecipeOffer } from './recipe.js';
import { createToolOffer, toolName } from './tool.js';

export interface OfferRegistry {
  /**
   * Everything offered on this server, sold or free (`isFree`, `isReadOnly`, `methodOf` in catalog/types.ts say how
   * each is called): the catalog's entries and lookups that can run here, each with its input schema.
   */
  offered(): CatalogEntry[];
  /** The entry's offer, built once. */
  offerFor(entry: CatalogEntry): Offer;
  /** True when the entry can run on this server as configured. */
  available(entry: CatalogEntry): boolean;
  /** Why an entry whose upstream is configured still cannot be sold (retired, or not served upstream), if so. */
  unavailableReason(entry: CatalogEntry): string | undefined;
}

/** What the model-list readings know (catalog/model-watch.ts). */
export interface ServedModels {
  unavailableReason(entry: CatalogEntry): string | undefined;
}

/**
 * The refusal, before any payment, of a model its provider retired (410 naming the successor) or does not serve:
 * stated in the catalog data (`official`: the provider's own API is configured, not an operator's base URL, to which
 * the catalog's dates do not apply), or found in the provider's model list.
 */
function lifecycleGuard(entry: CatalogEntry, official: boolean, served: ServedModels | undefined): void {
  if (entry.kind !== 'model') return;
  if (official && isRetired(entry)) throw retiredError(entry);
  const reason = (official ? entry.unavailable : undefined) ?? served?.unavailableReason(entry);
  if (reason) {
    throw new ApiError('unavailable', `model ${entry.id} cannot be sold here now: ${reason}`, {
      model: entry.id,
      ...(entry.successor ? { successor: entry.successor } : {}),
    });
  }
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
  deps: ToolDeps & {
    chat: ChatRuntime;
    mediaProviders: MediaProviders;
    mediaRuntime: MediaRuntime;
    served?: ServedModels;
  },
): OfferRegistry {
  const offers = new Map<string, Offer>();
  // The catalog's lifecycle dates are the provider's own API's: a base URL the operator set (a gateway, a proxy that
  // still serves the model) is the operator's to vouch for; the model-list check still asks that server.
  const officialApi = (entry: CatalogEntry) => {
    if (entry.kind !== 'model') return false;
    const provider = entry.upstream.provider;
    return deps.config.providers[provider]?.baseUrl === PROVIDER_ENV[provider].defaultBaseUrl;
  };
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
    // A live entry (a self-hosted model) is replaced when its server's list changes: its offer is built again.
    if (!offer || offer.entry !== entry) {
      offer = guarded(build(entry));
      offers.set(entry.id, offer);
    }
    return offer;
  };
  const guarded = (offer: Offer): Offer => {
    if (offer.entry.kind !== 'model') return offer;
    const inner = offer.preflight?.bind(offer);
    return {
      ...offer,
      preflight(input) {
        lifecycleGuard(offer.entry, officialApi(offer.entry), deps.served);
        inner?.(input);
      },
    };
  };
  const build = (entry: CatalogEntry): Offer => {
    if (entry.kind === 'model') {
      if (entry.category === 'chat') return createChatOffer(entry, deps.chat);
      const provider = deps.mediaProviders.forEntry(entry);
      return provider ? createMediaOffer(entry, provider, deps.mediaRuntime) : unavailableOffer(entry);
    }
    if (entry.kind === 'recipe') return createRecipeOffer(entry, { catalog: deps.catalog, offerFor });
    if (entry.kind === 'lookup') {
      const lookup = LOOKUPS[lookupName(entry)];
      return lookup ? createLookupOffer(entry, lookup) : unavailableOffer(entry);
    }
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
    if (entry.kind === 'lookup') return LOOKUPS[lookupName(entry)] !== undefined;
    const built = toolOf(entry);
    return built !== undefined && !('missing' in built);
  };
  const unavailableReason = (entry: CatalogEntry): string | undefined => {
    if (entry.kind !== 'model') return undefined;
    const official = officialApi(entry);
    if (official && isRetired(entry)) return retiredError(entry).message;
    return (official ? entry.unavailable : undefined) ?? deps.served?.unavailableReason(entry);
  };
  const canRun = (entry: CatalogEntry) => available(entry) && unavailableReason(entry) === undefined;
  return {
    offered: () => deps.catalog.offered().filter(canRun),
    offerFor,
    available: canRun,
    unavailableReason,
  };
}
