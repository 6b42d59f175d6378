/**
 * A model's life at its provider: deprecated (still sold, with the date it goes), retired after its sunset day
 * (refused before any payment with 410 `model_retired` naming the successor), or unavailable here for a stated
 * reason. What the catalog routes show and what the checkout refuses come from here.
 */
import { ApiError } from '../http/errors.js';
import type { CatalogEntry } from './types.js';

/** Today as YYYY-MM-DD in UTC, the form the catalog's dates are written in. */
export function utcDay(now: Date = new Date()): string {
  return now.toISOString().slice(0, 10);
}

/** True once the entry's sunset day has come (the provider no longer serves it). */
export function isRetired(entry: CatalogEntry, now: Date = new Date()): boolean {
  return entry.kind === 'model' && entry.sunset !== undefined && entry.sunset <= utcDay(now);
}

/** The 410 for a call to a retired model, naming the day and the successor. */
export function retiredError(entry: CatalogEntry): ApiError {
  const m = entry.kind === 'model' ? entry : undefined;
  const instead = m?.successor ? `; use ${m.successor} instead` : '';
  return new ApiError(
    'model_retired',
    `model ${entry.id} was retired by its provider on ${m?.sunset}${instead}`,
    {
      model: entry.id,
      sunset: m?.sunset,
      ...(m?.successor ? { successor: m.successor } : {}),
    },
  );
}

/** The lifecycle fields a catalog listing shows for an entry (none for an entry with no dates). */
export function lifecycleView(entry: CatalogEntry, now: Date = new Date()) {
  if (entry.kind !== 'model') return {};
  return {
    ...(entry.deprecated ? { deprecated: entry.deprecated } : {}),
    ...(entry.sunset ? { sunset: entry.sunset } : {}),
    ...(entry.successor ? { successor: entry.successor } : {}),
    ...(isRetired(entry, now) ? { retired: true } : {}),
  };
}
