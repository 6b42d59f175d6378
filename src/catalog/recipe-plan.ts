/**
 * A recipe call as two model calls: which image and video models run and with what inputs, worked out from the
 * recipe's own fields (prompt, imageModel, videoModel, motionPrompt, duration, resolution) and each model's schema.
 * Pure: the catalog validates and quotes recipes with it, and the recipe offer runs what it plans.
 */
import type { FieldError } from '../http/errors.js';
import { LONGEST_CHARACTER_PROMPT } from './recipe-character.js';
import type { Catalog, JsonSchema, ModelEntry, Quote, RecipeEntry, RecipeStep } from './types.js';

/** Stands for the image step's result in the video step's input until the image exists (a URL nobody can fetch). */
export const IMAGE_PLACEHOLDER = 'https://recipe.invalid/image.png';

/** The fields an image-to-video model takes its start frame in, in order of preference. */
const START_IMAGE_FIELDS = [
  'image_url',
  'start_image_url',
  'first_frame_image',
  'first_frame_url',
  'promptImage',
  'image',
  'input_image',
];
/** The fields a video model takes its motion prompt in. */
const MOTION_PROMPT_FIELDS = ['prompt', 'promptText'];

export interface PlannedStep {
  entry: ModelEntry;
  /** The step's validated input (schema defaults applied). */
  input: Record<string, unknown>;
  quote: Quote;
  /** The video step's field that takes the image (absent on the image step). */
  imageField?: string;
}

export interface RecipePlan {
  image: PlannedStep;
  video: PlannedStep;
}

type Planned = { ok: true; plan: RecipePlan } | { ok: false; errors: FieldError[] };

const propsOf = (entry: ModelEntry) => (entry.input.properties ?? {}) as Record<string, JsonSchema>;

/** Whether a model's schema declares `field` and accepts `value` for it (its enum, when it has one). */
function accepts(props: Record<string, JsonSchema>, field: string, value: unknown): boolean {
  const prop = props[field];
  if (!prop) return false;
  return !Array.isArray(prop.enum) || prop.enum.includes(value);
}

/**
 * The step's fixed inputs on its own model: the recipe's, as written for its default model. A model chosen
 * instead gets those it understands (the same field, a value it accepts) and its own defaults for the rest.
 */
function stepDefaults(step: RecipeStep, entry: ModelEntry): Record<string, unknown> {
  if (entry.id === step.model) return { ...step.input };
  const props = propsOf(entry);
  return Object.fromEntries(Object.entries(step.input).filter(([k, v]) => accepts(props, k, v)));
}

/** The step's model: the caller's choice (which must be a model of the step's category) or the recipe's. */
function stepModel(
  catalog: Catalog,
  chosen: unknown,
  fallback: string,
  field: string,
  category: ModelEntry['category'],
  errors: FieldError[],
): ModelEntry | undefined {
  const id = typeof chosen === 'string' ? chosen : fallback;
  const entry = catalog.find(id);
  if (!entry) {
    errors.push({ field, message: `unknown model "${id}"; closest: ${catalog.suggest(id).join(', ')}` });
    return undefined;
  }
  if (entry.kind !== 'model' || entry.category !== category) {
    errors.push({
      field,
      message: `"${id}" is not ${/^[aeiou]/.test(category) ? 'an' : 'a'} ${category} model (GET /v1/models?category=${category})`,
    });
    return undefined;
  }
  return entry;
}

/** The value of a video model's duration field for `seconds`, or the durations it offers. */
function durationValue(prop: JsonSchema, seconds: number): { value: unknown } | { offers: string } {
  if (Array.isArray(prop.enum)) {
    const value = prop.enum.find((v) => Number.parseFloat(String(v)) === seconds);
    return value === undefined ? { offers: prop.enum.join(', ') } : { value };
  }
  const min = typeof prop.minimum === 'number' ? prop.minimum : 1;
  const max = typeof prop.maximum === 'number' ? prop.maximum : seconds;
  if (seconds < min || seconds > max) return { offers: `${min} to ${max} seconds` };
  return { value: prop.type === 'string' ? String(seconds) : seconds };
}

/** Sets the caller's duration and resolution on the video step's input, in the model's own terms. */
function applyVideoChoices(
  entry: ModelEntry,
  input: Record<string, unknown>,
  given: Record<string, unknown>,
  errors: FieldError[],
): void {
  const props = propsOf(entry);
  if (typeof given.duration === 'number') {
    const field = ['duration', 'seconds'].find((f) => props[f]);
    const found = field ? durationValue(props[field] as JsonSchema, given.duration) : undefined;
    if (!field || !found) errors.push({ field: 'duration', message: `${entry.id} has a fixed length` });
    else if ('offers' in found)
      errors.push({ field: 'duration', message: `${entry.id} makes videos of ${found.offers}` });
    else input[field] = found.value;
  }
  if (typeof given.resolution === 'string') {
    const prop = props.resolution;
    const wanted = given.resolution.toLowerCase();
    const value = Array.isArray(prop?.enum)
      ? prop.enum.find((v) => String(v).toLowerCase() === wanted)
      : prop && given.resolution;
    if (!prop) errors.push({ field: 'resolution', message: `${entry.id} has a fixed resolution` });
    else if (value === undefined)
      errors.push({
        field: 'resolution',
        message: `${entry.id} offers ${(prop.enum as unknown[]).join(', ')}`,
      });
    else input.resolution = value;
  }
}

/** Validates one step's input with its model's own rules, naming the recipe field a problem comes from. */
function checkStep(
  catalog: Catalog,
  entry: ModelEntry,
  input: Record<string, unknown>,
  fieldFor: (stepField: string) => string,
  errors: FieldError[],
): PlannedStep | undefined {
  const checked = catalog.validate(entry, input);
  if (!checked.ok) {
    for (const e of checked.errors) {
      const field = fieldFor(e.field);
      errors.push({ field, message: field === e.field ? e.message : `${entry.id}: ${e.field} ${e.message}` });
    }
    return undefined;
  }
  const quote = checked.modelQuote ?? catalog.quote(entry, checked.value, 'prepaid');
  return { entry, input: checked.value, quote };
}

/**
 * The image step's prompt: the caller's, or on the random-character recipe the character's with the caller's
 * optional theme (validation and quotes use the longest character the recipe can invent).
 */
export function imagePrompt(recipe: RecipeEntry, given: Record<string, unknown>, character?: string): string {
  const prompt = typeof given.prompt === 'string' ? given.prompt : '';
  if (!recipe.randomCharacter) return prompt;
  const who = character ?? LONGEST_CHARACTER_PROMPT;
  return prompt ? `${who} Theme: ${prompt}.` : who;
}

/** Plans a recipe call whose own fields passed the recipe's schema; `prompt` is the image prompt (imagePrompt). */
export function planRecipe(
  catalog: Catalog,
  recipe: RecipeEntry,
  given: Record<string, unknown>,
  prompt: string,
): Planned {
  const errors: FieldError[] = [];
  const imageEntry = stepModel(
    catalog,
    given.imageModel,
    recipe.image.model,
    'imageModel',
    'text-to-image',
    errors,
  );
  const videoEntry = stepModel(
    catalog,
    given.videoModel,
    recipe.video.model,
    'videoModel',
    'image-to-video',
    errors,
  );
  if (!imageEntry || !videoEntry) return { ok: false, errors };

  const imageInput = { ...stepDefaults(recipe.image, imageEntry), prompt };
  const image = checkStep(
    catalog,
    imageEntry,
    imageInput,
    (f) => (f === 'prompt' ? 'prompt' : 'imageModel'),
    errors,
  );

  const videoProps = propsOf(videoEntry);
  const imageField = START_IMAGE_FIELDS.find((f) => videoProps[f]);
  if (!imageField) {
    errors.push({ field: 'videoModel', message: `${videoEntry.id} takes no start image` });
    return { ok: false, errors };
  }
  const videoInput: Record<string, unknown> = {
    ...stepDefaults(recipe.video, videoEntry),
    [imageField]: IMAGE_PLACEHOLDER,
  };
  const motion =
    typeof given.motionPrompt === 'string'
      ? given.motionPrompt
      : recipe.motionPrompt.replace('{prompt}', prompt);
  const motionField = MOTION_PROMPT_FIELDS.find((f) => videoProps[f]);
  if (motionField) videoInput[motionField] = motion;
  else if (typeof given.motionPrompt === 'string')
    errors.push({ field: 'motionPrompt', message: `${videoEntry.id} takes no prompt` });
  applyVideoChoices(videoEntry, videoInput, given, errors);
  const videoFieldFor = (f: string) =>
    f === 'duration' || f === 'seconds'
      ? 'duration'
      : f === 'resolution'
        ? 'resolution'
        : f === motionField
          ? 'motionPrompt'
          : 'videoModel';
  const video = checkStep(catalog, videoEntry, videoInput, videoFieldFor, errors);
  if (!image || !video || errors.length) return { ok: false, errors };
  return { ok: true, plan: { image, video: { ...video, imageField } } };
}

/**
 * A recipe's price: its flat price, or the sum of its steps' quotes when the models chosen cost more than that
 * (so a call never costs kasir more than it charges).
 */
export function recipeQuote(plan: RecipePlan, flatMicroUsd: number): Quote {
  const steps = plan.image.quote.costMicroUsd + plan.video.quote.costMicroUsd;
  return { costMicroUsd: Math.max(flatMicroUsd, steps), unit: 'call', units: 1 };
}
