/**
 * The recipe offer: runs a recipe's image step, then its video step with the image (kasir's own link to it) as the
 * start frame, each through its model's own offer, and answers every step's output and the final URL. Offers never
 * touch money: a step that fails fails the whole call, and the checkout charges nothing for it.
 */
import { randomInt } from 'node:crypto';
import { randomCharacter } from '../catalog/recipe-character.js';
import { imagePrompt, type PlannedStep, planRecipe } from '../catalog/recipe-plan.js';
import type { Catalog, CatalogEntry, RecipeEntry } from '../catalog/types.js';
import type { Offer, RunContext } from '../checkout/offer.js';
import { invalidInput } from '../http/errors.js';
import { UpstreamError } from '../providers/types.js';

export interface RecipeRuntime {
  catalog: Catalog;
  /** The offer that runs a step's model (the registry's). */
  offerFor(entry: CatalogEntry): Offer;
  /** An integer in [0, n) for the random character; crypto randomness unless a test fixes it. */
  pick?: (n: number) => number;
}

/** Runs one step through its model's offer; its JSON answer is the step's output. */
async function runStep(
  rt: RecipeRuntime,
  step: PlannedStep,
  input: Record<string, unknown>,
  ctx: RunContext,
): Promise<Record<string, unknown>> {
  const result = await rt.offerFor(step.entry).run(input, { ...ctx, quote: step.quote });
  if (result.kind !== 'json') throw new UpstreamError('upstream', `${step.entry.id} did not answer a file`);
  return result.body;
}

export function createRecipeOffer(entry: RecipeEntry, rt: RecipeRuntime): Offer {
  const plan = (input: Record<string, unknown>, character?: string) => {
    const planned = planRecipe(rt.catalog, entry, input, imagePrompt(entry, input, character));
    // The checkout validated the input with the same plan; a refusal here would be a change of catalog under us.
    if (!planned.ok) throw invalidInput(planned.errors);
    return planned.plan;
  };
  return {
    entry,
    preflight(input) {
      const { image, video } = plan(input);
      rt.offerFor(image.entry).preflight?.(image.input);
      rt.offerFor(video.entry).preflight?.(video.input);
    },
    async run(input, ctx) {
      const character = entry.randomCharacter ? randomCharacter(rt.pick ?? ((n) => randomInt(n))) : undefined;
      const { image, video } = plan(input, character?.prompt);
      const picture = await runStep(rt, image, image.input, ctx);
      if (typeof picture.url !== 'string')
        throw new UpstreamError('upstream', `${image.entry.id} answered no image`);
      const startFrame = { ...video.input, [video.imageField as string]: picture.url };
      const clip = await runStep(rt, video, startFrame, ctx);
      if (typeof clip.url !== 'string')
        throw new UpstreamError('upstream', `${video.entry.id} answered no video`);
      const steps: Array<Record<string, unknown>> = [];
      if (character) steps.push({ step: 'character', output: character });
      steps.push({ step: 'image', model: image.entry.id, output: picture });
      steps.push({ step: 'video', model: video.entry.id, output: clip });
      return { kind: 'json', body: { steps, url: clip.url } };
    },
  };
}
