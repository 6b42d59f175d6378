/**
 * A paid call's JSON answer: the id of what was sold (`model`, `tool` or `recipe`) and its cost lead and win over
 * the result's own fields (an upstream `model` never hides the id that was sold), the result nested under `output`
 * or spread beside them, the receipt last. The synchronous answer and a finished job's result are this one body.
 * Built from object literals and plain assignments: a computed key or a spread would turn the object into a slow
 * dictionary before it is serialised (this runs once per paid call).
 */
import type { CatalogEntry } from '../catalog/types.js';

export function paidAnswer(
  entry: CatalogEntry,
  costMicroUsd: number,
  result: Record<string, unknown>,
  receipt: Record<string, unknown>,
  nest: boolean,
): Record<string, unknown> {
  const out: Record<string, unknown> =
    entry.kind === 'model'
      ? { model: entry.id, costMicroUsd }
      : entry.kind === 'recipe'
        ? { recipe: entry.id, costMicroUsd }
        : { tool: entry.id, costMicroUsd };
  if (nest) out.output = result;
  else Object.assign(out, result);
  if (entry.kind === 'model') out.model = entry.id;
  else if (entry.kind === 'recipe') out.recipe = entry.id;
  else out.tool = entry.id;
  out.costMicroUsd = costMicroUsd;
  out.receipt = receipt;
  return out;
}
