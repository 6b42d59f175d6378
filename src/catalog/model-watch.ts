/**
 * Reads the model lists of the upstreams this server is configured for, at start-up (without holding it up) and
 * then every MODEL_LIST_REFRESH_SECONDS: a self-hosted server's list becomes catalog entries at the operator's price;
 * a provider's list tells which catalog models it no longer serves, so they show `available: false` with the reason
 * and are refused before payment instead of sold for a sure 404. The last good reading of each list is kept when a
 * later one fails; a list never read leaves its models as they were (available).
 */
import type { Config } from '../config/load.js';
import { isSelfHosted, type ProviderName } from '../config/providers.js';
import { type ListedModel, listModels, MODEL_LIST_FORMAT } from '../providers/model-lists.js';
import { chatTargets } from '../providers/registry.js';
import { priceOf, selfHostedEntry } from './self-hosted.js';
import type { LoadedCatalog } from './served.js';
import type { CatalogEntry } from './types.js';

/** How long one list reading may take. */
const LIST_TIMEOUT_MS = 10_000;

/** One provider's last reading. */
export interface ListReading {
  provider: string;
  /** ISO time of the last attempt. */
  checkedAt: string;
  /** Models listed at the last good reading; undefined when no reading ever succeeded. */
  count?: number;
  /** Why the last attempt failed (the last good list, if any, is still used). */
  error?: string;
  /** Catalog models of this provider it does not list (self-hosted servers: the models they add). */
  missing: string[];
  /** Self-hosted servers: the catalog ids their models got. */
  added?: string[];
}

export interface ModelWatch {
  /** Resolves when the first reading of every list has ended (succeeded or failed). */
  readonly ready: Promise<void>;
  /** Reads every list again now. */
  refresh(): Promise<void>;
  /** Why a model cannot be sold although its provider is configured, or undefined when it can (or nobody knows). */
  unavailableReason(entry: CatalogEntry): string | undefined;
  /** The last reading of each list, for the start-up log and `kasir doctor`. */
  report(): ListReading[];
  /** Grows each time a reading changes what is available. */
  readonly version: number;
  stop(): void;
}

interface Served {
  ids: Set<string>;
  at: string;
}

/**
 * True when `listed` names the model `endpoint`: the same id, or a dated snapshot of it (`claude-sonnet-4-5-20250929`,
 * `gpt-4.1-2025-04-14`, `grok-4-0709`): providers list snapshots and accept the undated alias.
 */
export function listsModel(ids: ReadonlySet<string>, endpoint: string): boolean {
  if (ids.has(endpoint)) return true;
  for (const id of ids) {
    if (
      id.startsWith(`${endpoint}-`) &&
      /^(\d{4}|\d{8}|\d{4}-\d{2}-\d{2})$/.test(id.slice(endpoint.length + 1))
    )
      return true;
  }
  return false;
}

/** The providers whose lists are read: the self-hosted servers configured, and (unless off) every keyed provider. */
export function providersToRead(config: Pick<Config, 'providers' | 'models'>): ProviderName[] {
  return (Object.keys(MODEL_LIST_FORMAT) as ProviderName[]).filter((name) => {
    const settings = config.providers[name];
    if (isSelfHosted(name)) return Boolean(settings.baseUrl);
    return config.models.upstreamCheck && Boolean(settings.apiKey);
  });
}

export function startModelWatch(
  config: Pick<Config, 'providers' | 'models'>,
  catalog: LoadedCatalog,
  onReading?: (readings: ListReading[]) => void,
  list: typeof listModels = listModels,
): ModelWatch {
  const served = new Map<string, Served>();
  const readings = new Map<string, ListReading>();
  let version = 0;
  const names = providersToRead(config);

  const configured = (provider: ProviderName) => names.includes(provider);

  const unavailableReason = (entry: CatalogEntry): string | undefined => {
    if (entry.kind !== 'model' || isSelfHosted(entry.upstream.provider)) return undefined;
    const targets = chatTargets(entry).filter((t) => configured(t.provider));
    if (targets.length === 0) return undefined;
    const reasons: string[] = [];
    for (const t of targets) {
      const known = served.get(t.provider);
      if (!known || listsModel(known.ids, t.endpoint)) return undefined;
      reasons.push(`${t.provider} does not list ${t.endpoint} (model list read ${known.at})`);
    }
    return reasons.join('; ');
  };

  const readOne = async (name: ProviderName) => {
    const format = MODEL_LIST_FORMAT[name];
    if (!format) return;
    const at = new Date().toISOString();
    const previous = readings.get(name);
    let listed: ListedModel[];
    try {
      listed = await list(name, format, config.providers[name], LIST_TIMEOUT_MS);
    } catch (err) {
      readings.set(name, {
        ...(previous ?? { provider: name, missing: [] }),
        checkedAt: at,
        error: (err as Error).message,
      });
      return;
    }
    if (isSelfHosted(name)) {
      const entries = listed.map((m) => selfHostedEntry(name, m, priceOf(name, m.id, config.models)));
      catalog.setLiveEntries(name, entries);
      readings.set(name, {
        provider: name,
        checkedAt: at,
        count: listed.length,
        missing: [],
        added: entries.map((e) => e.id),
      });
      version++;
      return;
    }
    // An empty list says nothing about any model (an account with no access yet): it is not taken as "none".
    if (listed.length > 0) served.set(name, { ids: new Set(listed.map((m) => m.id)), at });
    const missing = catalog
      .models()
      .filter((e) => chatTargets(e).some((t) => t.provider === name) && unavailableReason(e) !== undefined)
      .map((e) => e.id);
    readings.set(name, { provider: name, checkedAt: at, count: listed.length, missing });
    version++;
  };

  const refresh = async () => {
    await Promise.all(names.map(readOne));
    onReading?.(report());
  };
  const report = () => names.flatMap((n) => readings.get(n) ?? []);

  const ready = names.length ? refresh() : Promise.resolve();
  const timer =
    names.length && config.models.refreshSeconds > 0
      ? setInterval(() => void refresh(), config.models.refreshSeconds * 1000)
      : undefined;
  timer?.unref();

  return {
    ready,
    refresh,
    unavailableReason,
    report,
    get version() {
      return version;
    },
    stop: () => clearInterval(timer),
  };
}

/** The start-up (and each refresh's) log lines: one per list, a warning for models a provider does not list. */
export function logReadings(
  log: { info(o: object, m: string): void; warn(o: object, m: string): void },
  readings: ListReading[],
): void {
  for (const r of readings) {
    if (r.error) log.warn({ provider: r.provider, error: r.error }, 'could not read the model list');
    else if (r.added)
      log.info({ provider: r.provider, models: r.added }, 'self-hosted models listed for sale');
    else if (r.missing.length)
      log.warn(
        { provider: r.provider, listed: r.count, missing: r.missing },
        'catalog models the provider does not list: shown unavailable, not sold',
      );
    else log.info({ provider: r.provider, listed: r.count }, 'provider serves every catalog model it runs');
  }
}
