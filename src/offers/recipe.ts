/**
 * The recipe offer: runs a recipe's image step, then its video step with the image (kasir's own link to it) as the
 * start frame, each through its model's own offer, and answers every step's output and the final URL; as an async
 * job, the video step is its model's job. Offers never touch money: a step that fails fails the whole call, and
 * the checkout charges nothing for it.
 */
import { randomInt } from 'node:crypto';
import { randomCharacter } from '../catalog/recipe-character.js';
import { imagePrompt, type PlannedStep, planRecipe } from '../catalog/recipe-plan.js';
import type { Catalog, CatalogEntry, RecipeEntry } from '../catalog/types.js';
import type { Offer, OfferJob, RunContext } from '../checkout/offer.js';
import { ApiError, invalidInput } from '../http/errors.js';
import { UpstreamError } from '../http/upstream-error.js';

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

/** What a recipe job keeps between polls: the steps done so far, and the video step's own job (or its output). */
interface RecipeHandle extends Record<string, unknown> {
  steps: Array<Record<string, unknown>>;
  videoModel: string;
  /** The video model's job handle, while it runs upstream. */
  video?: Record<string, unknown>;
  /** The video step's output, when its model answered within the submit (a model without a queue). */
  clip?: Record<string, unknown>;
}

/** The answer: every step's output and the final link. */
function answer(steps: Array<Record<string, unknown>>, videoModel: string, clip: Record<string, unknown>) {
  if (typeof clip.url !== 'string') throw new UpstreamError('upstream', `${videoModel} answered no video`);
  return { steps: [...steps, { step: 'video', model: videoModel, output: clip }], url: clip.url };
}

export function createRecipeOffer(entry: RecipeEntry, rt: RecipeRuntime): Offer {
  const plan = (input: Record<string, unknown>, character?: string) => {
    const planned = planRecipe(rt.catalog, entry, input, imagePrompt(entry, input, character));
    // The checkout validated the input with the same plan; a refusal here would be a change of catalog under us.
    if (!planned.ok) throw invalidInput(planned.errors);
    return planned.plan;
  };
  /** Invents the character (random-character), plans, and runs the image step: what both ways of running share. */
  const firstSteps = async (input: Record<string, unknown>, ctx: RunContext) => {
    const character = entry.randomCharacter ? randomCharacter(rt.pick ?? ((n) => randomInt(n))) : undefined;
    const { image, video } = plan(input, character?.prompt);
    const picture = await runStep(rt, image, image.input, ctx);
    if (typeof picture.url !== 'string')
      throw new UpstreamError('upstream', `${image.entry.id} answered no image`);
    const steps: Array<Record<string, unknown>> = [];
    if (character) steps.push({ step: 'character', output: character });
    steps.push({ step: 'image', model: image.entry.id, output: picture });
    const startFrame = { ...video.input, [video.imageField as string]: picture.url };
    return { steps, video, startFrame };
  };
  const videoJobOf = (id: string) => {
    const model = rt.catalog.find(id);
    const job = model && rt.offerFor(model).job;
    if (!job) throw new Error(`recipe job names ${id}, which runs no job`);
    return job;
  };

  // With `Prefer: respond-async` the image step runs within the request, then the video step as its model's job.
  const job: OfferJob = {
    async submit(input, ctx) {
      const { steps, video, startFrame } = await firstSteps(input, ctx);
      const videoJob = rt.offerFor(video.entry).job;
      const handle: RecipeHandle = { steps, videoModel: video.entry.id };
      if (videoJob) handle.video = await videoJob.submit(startFrame, { ...ctx, quote: video.quote });
      else handle.clip = await runStep(rt, video, startFrame, ctx);
      return handle;
    },
    async status(handle, signal) {
      const h = handle as RecipeHandle;
      return h.video ? videoJobOf(h.videoModel).status(h.video, signal) : { state: 'succeeded' };
    },
    async result(handle, signal) {
      const h = handle as RecipeHandle;
      const clip = h.video ? await videoJobOf(h.videoModel).result(h.video, signal) : (h.clip ?? {});
      return answer(h.steps, h.videoModel, clip);
    },
    async cancel(handle) {
      const h = handle as RecipeHandle;
      if (h.video) await videoJobOf(h.videoModel).cancel?.(h.video);
    },
  };

  return {
    entry,
    job,
    preflight(input) {
      const { image, video } = plan(input);
      try {
        rt.offerFor(image.entry).preflight?.(image.input);
        rt.offerFor(video.entry).preflight?.(video.input);
      } catch (err) {
        if (!(err instanceof ApiError) || err.code !== 'not_configured') throw err;
        throw new ApiError('not_configured', `recipe ${entry.id} cannot run here: ${err.message}`, {
          recipe: entry.id,
          ...(err.details as Record<string, unknown> | undefined),
        });
      }
    },
    async run(input, ctx) {
      const { steps, video, startFrame } = await firstSteps(input, ctx);
      const clip = await runStep(rt, video, startFrame, ctx);
      return { kind: 'json', body: answer(steps, video.entry.id, clip) };
    },
  };
}
