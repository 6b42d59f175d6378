/** Finds the catalog entry a request names, or answers 400 (missing) / 404 (unknown, with the three closest ids). */
import { ApiError, invalidInput } from '../http/errors.js';
import type { Catalog, CatalogEntry } from './types.js';

export function resolveEntry(catalog: Catalog, id: unknown, field = 'model'): CatalogEntry {
  if (typeof id !== 'string' || id.trim() === '') {
    throw invalidInput([{ field, message: 'is required (a model id, alias or tool id)' }]);
  }
  const entry = catalog.find(id);
  if (entry) return entry;
  const suggestions = catalog.suggest(id);
  throw new ApiError('model_not_found', `unknown model "${id}"; closest: ${suggestions.join(', ')}`, {
    suggestions,
  });
}
