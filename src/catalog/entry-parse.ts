/** Turns one raw entry of a catalog data file into a CatalogEntry, reporting each bad field by its path. */
import { CATEGORY_ROUTES } from './category-routes.js';
import { chatInputSchema } from './chat-schema.js';
import {
  chatModelShape,
  type DataFileName,
  lookupShape,
  mediaModelShape,
  recipeShape,
  toolShape,
} from './data-shape.js';
import { recipeInputSchema } from './recipe-schema.js';
import type { CatalogEntry, LookupEntry, ModelEntry, RecipeEntry, ToolEntry } from './types.js';

function issuePath(path: ReadonlyArray<PropertyKey>): string {
  return (
    path
      .map((p) => (typeof p === 'number' ? `[${p}]` : `.${String(p)}`))
      .join('')
      .replace(/^\./, '') || '(entry)'
  );
}

/** The entry `raw` of `file`, or undefined after reporting what is wrong with it. */
export function toEntry(
  file: DataFileName,
  raw: unknown,
  problem: (field: string, text: string) => void,
): CatalogEntry | undefined {
  const report = (error: { issues: Array<{ path: ReadonlyArray<PropertyKey>; message: string }> }) => {
    for (const issue of error.issues) problem(issuePath(issue.path), issue.message);
    return undefined;
  };
  if (file === 'tools') {
    const parsed = toolShape.safeParse(raw);
    if (!parsed.success) return report(parsed.error);
    const tool: ToolEntry = { kind: 'tool', ...parsed.data, path: `/v1/${parsed.data.id}` };
    return tool;
  }
  if (file === 'lookups') {
    const parsed = lookupShape.safeParse(raw);
    if (!parsed.success) return report(parsed.error);
    const lookup: LookupEntry = {
      kind: 'lookup',
      ...parsed.data,
      path: `/v1/${parsed.data.id}`,
      method: 'GET',
      readOnly: true,
    };
    return lookup;
  }
  if (file === 'recipes') {
    const parsed = recipeShape.safeParse(raw);
    if (!parsed.success) return report(parsed.error);
    const path = `/v1/${parsed.data.id}`;
    const recipe: RecipeEntry = {
      kind: 'recipe',
      ...parsed.data,
      path,
      input: recipeInputSchema(parsed.data),
    };
    return recipe;
  }
  if (file === 'chat') {
    const parsed = chatModelShape.safeParse(raw);
    if (!parsed.success) return report(parsed.error);
    const model: ModelEntry = {
      kind: 'model',
      ...parsed.data,
      route: CATEGORY_ROUTES.chat,
      input: chatInputSchema(parsed.data.chat),
    };
    return model;
  }
  const parsed = mediaModelShape.safeParse(raw);
  if (!parsed.success) return report(parsed.error);
  if (parsed.data.category !== file) {
    problem('category', `is "${parsed.data.category}" but the entry is in ${file}.json`);
    return undefined;
  }
  const category = file;
  const model: ModelEntry = { kind: 'model', ...parsed.data, category, route: CATEGORY_ROUTES[category] };
  return model;
}
