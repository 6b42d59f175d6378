/** How catalog entries appear in the listings: a model's summary, its OpenAI list form, a tool's, recipe's or lookup's line, skill.md's facts. */
import { lifecycleView } from '../catalog/lifecycle.js';
import type { LoadedCatalog } from '../catalog/served.js';
import type { PriceSummary } from '../catalog/summary.js';
import { type Catalog, type CatalogEntry, type JsonSchema, methodOf, pathOf } from '../catalog/types.js';

/** What the listings need to know of this server beyond the catalog. */
export interface Availability {
  /** Whether the entry can run on this server (its provider is configured). */
  isAvailable: (entry: CatalogEntry) => boolean;
  /** Why a model cannot be sold although its provider is configured (retired, not served upstream), if so. */
  unavailableReason?: (entry: CatalogEntry) => string | undefined;
}

function fileRefPaths(schema: JsonSchema, prefix = ''): string[] {
  const props = (schema.properties ?? {}) as Record<string, JsonSchema>;
  const out: string[] = [];
  for (const [name, prop] of Object.entries(props)) {
    const path = prefix + name;
    if (prop.fileRef || (prop.items as JsonSchema | undefined)?.fileRef) out.push(path);
    else if (prop.properties) out.push(...fileRefPaths(prop, `${path}.`));
  }
  return out;
}

/** File inputs of an entry, as dotted paths (`image_url`, `a.image_url`, `messages[].content[].image_url.url`). */
function fileRefsOf(entry: CatalogEntry): string[] {
  if (entry.kind === 'model' && entry.chat)
    return entry.chat.vision ? ['messages[].content[].image_url.url'] : [];
  return fileRefPaths(entry.input);
}

/** A model's line in /v1/models and its answer in /v1/models/{id}. */
export function modelSummary(catalog: LoadedCatalog, deps: Availability, entry: CatalogEntry) {
  if (entry.kind !== 'model') return undefined;
  const reason = deps.unavailableReason?.(entry);
  return {
    id: entry.id,
    name: entry.name,
    category: entry.category,
    route: entry.route,
    available: deps.isAvailable(entry),
    provider: entry.upstream.provider,
    output: entry.output,
    price: catalog.summary(entry),
    fileRefs: fileRefsOf(entry),
    ...(entry.aliases?.length ? { aliases: entry.aliases } : {}),
    ...(entry.priceUnconfirmed ? { priceUnconfirmed: true } : {}),
    ...(reason ? { unavailableReason: reason } : {}),
    ...lifecycleView(entry),
  };
}

/** The kasir process's start, in Unix seconds: the `created` of catalog models in the OpenAI list format. */
const LISTED_SINCE = Math.floor(Date.now() / 1000);

/** A model as the OpenAI list format has it (`owned_by` is the owner part of the id: `openai`, `meta-llama`). */
export function openAiModel(entry: CatalogEntry) {
  return {
    id: entry.id,
    object: 'model' as const,
    created: LISTED_SINCE,
    owned_by: entry.id.slice(0, entry.id.indexOf('/')),
  };
}

/** A tool's, a recipe's or a free lookup's line in /v1/models (`kind` says which list asks). */
export function flatSummary(
  catalog: LoadedCatalog,
  isAvailable: Availability['isAvailable'],
  entry: CatalogEntry,
  kind: 'tool' | 'recipe' | 'lookup',
) {
  if (entry.kind !== kind) return undefined;
  return {
    id: entry.id,
    name: entry.name,
    category: entry.kind,
    method: methodOf(entry),
    path: pathOf(entry),
    available: isAvailable(entry),
    price: catalog.summary(entry) satisfies PriceSummary,
    fileRefs: fileRefsOf(entry),
    ...(entry.walletPriceNote ? { walletPriceNote: entry.walletPriceNote } : {}),
    ...(entry.kind === 'lookup' ? { free: true as const, readOnly: entry.readOnly } : {}),
  };
}

/** Model counts per category and a few example ids, for /skill.md. */
export function catalogFacts(catalog: Catalog): { categories: Record<string, number>; examples: string[] } {
  const categories: Record<string, number> = {};
  const examples: string[] = [];
  for (const m of catalog.models()) {
    categories[m.category] = (categories[m.category] ?? 0) + 1;
    if (categories[m.category] === 1) examples.push(m.id);
  }
  return { categories, examples };
}
