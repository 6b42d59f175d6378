/** The shape of the catalog data files, checked with zod at start-up so a bad entry names itself and its field. */
import { z } from 'zod';
import { PROVIDER_ENV } from '../config/providers.js';
import { CATEGORIES, type PriceRule, type RateTable } from './types.js';

/** The data files under ./data, one per category plus the tools, the recipes and the free lookups. */
export const DATA_FILES = [...CATEGORIES, 'tools', 'recipes', 'lookups'] as const;
export type DataFileName = (typeof DATA_FILES)[number];

const microUsd = z.number().int().nonnegative();
const positiveInt = z.number().int().positive();
const providerName = z.enum(
  Object.keys(PROVIDER_ENV) as [keyof typeof PROVIDER_ENV, ...(keyof typeof PROVIDER_ENV)[]],
);

/** Chat upstreams kasir speaks to (the chat adapters). */
export const CHAT_PROVIDERS = [
  'openai',
  'anthropic',
  'google',
  'openrouter',
  'together',
  'groq',
  'deepseek',
  'xai',
] as const;

const rateTable: z.ZodType<RateTable> = z.lazy(() =>
  z.union([microUsd, z.strictObject({ by: z.string().min(1), rates: z.record(z.string(), rateTable) })]),
);

const duration = z.strictObject({
  field: z.string().min(1).optional(),
  scale: positiveInt.optional(),
  ceilingSeconds: positiveInt.optional(),
  framesField: z.string().min(1).optional(),
  framesPerSecond: positiveInt.optional(),
  fixedSeconds: positiveInt.optional(),
});

const extra = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('prompt_tokens'), field: z.string().min(1), ratePer1M: microUsd }),
  z.strictObject({ kind: z.literal('per_item'), field: z.string().min(1), rate: microUsd }),
]);

const countFields = z.array(z.string().min(1)).min(1).optional();

export const priceRuleShape: z.ZodType<PriceRule> = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('flat'), unit: z.enum(['call', 'video']), rate: rateTable }),
  z.strictObject({
    kind: z.literal('per_image'),
    rate: rateTable,
    count: countFields,
    extras: z.array(extra).optional(),
  }),
  z.strictObject({
    kind: z.literal('per_megapixel'),
    rate: rateTable,
    firstMegapixelRate: microUsd.optional(),
    size: z.union([
      z.strictObject({
        field: z.string().min(1),
        presets: z.record(z.string(), z.tuple([positiveInt, positiveInt])),
      }),
      z.strictObject({ fixedMegapixels: positiveInt }),
    ]),
    count: countFields,
  }),
  z.strictObject({ kind: z.literal('per_second'), rate: rateTable, per: positiveInt.optional(), duration }),
  z.strictObject({
    kind: z.literal('video_tokens'),
    rate: rateTable,
    resolutionField: z.string().min(1),
    aspectRatioField: z.string().min(1),
    fps: positiveInt,
    duration,
    pixels: z.record(z.string(), z.record(z.string(), positiveInt)),
  }),
  z.strictObject({
    kind: z.literal('per_character'),
    rate: rateTable,
    per: positiveInt,
    field: z.string().min(1),
  }),
  z.strictObject({ kind: z.literal('per_minute'), rate: rateTable, per: positiveInt.optional(), duration }),
  z.strictObject({
    kind: z.literal('chat_tokens'),
    inputPer1M: microUsd,
    outputPer1M: microUsd,
    longContext: z
      .strictObject({ aboveTokens: positiveInt, inputPer1M: microUsd, outputPer1M: microUsd })
      .optional(),
  }),
]);

const id = z
  .string()
  .regex(/^[a-z0-9][a-z0-9._-]*\/[A-Za-z0-9][A-Za-z0-9._@-]*$/, 'must look like owner/model');
const jsonSchema = z.record(z.string(), z.unknown());
const day = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a date, YYYY-MM-DD');

const chatTraits = z.strictObject({
  contextLength: positiveInt.nullable(),
  maxOutputTokens: positiveInt.nullable(),
  vision: z.boolean(),
  tools: z.boolean(),
  reasoningEffort: z.array(z.string().min(1)).min(1).optional(),
  refusedFields: z.array(z.string().min(1)).min(1).optional(),
  maxTokensRequired: z.boolean().optional(),
  outputLimitField: z.enum(['max_tokens', 'max_completion_tokens']).optional(),
});

const common = {
  id,
  aliases: z.array(z.string().min(1)).optional(),
  name: z.string().min(1),
  description: z.string().min(10),
  synonyms: z.array(z.string().min(1)).optional(),
  example: z.record(z.string(), z.unknown()).optional(),
  upstream: z.strictObject({ provider: providerName, endpoint: z.string().min(1) }),
  fallbacks: z.array(z.strictObject({ provider: providerName, endpoint: z.string().min(1) })).optional(),
  priceUnconfirmed: z.boolean().optional(),
  priceSource: z.string().min(3),
  localInputs: z.array(z.string().min(1)).optional(),
  deprecated: z.union([day, z.literal(true)]).optional(),
  sunset: day.optional(),
  successor: id.optional(),
  unavailable: z.string().min(10).optional(),
  lifecycleSource: z.string().min(3).optional(),
};

/** A media model: its input schema is in the data. */
export const mediaModelShape = z.strictObject({
  ...common,
  category: z.enum(CATEGORIES.filter((c) => c !== 'chat') as [string, ...string[]]),
  output: z.enum(['image', 'video', 'audio', 'text', 'json']),
  input: jsonSchema,
  price: priceRuleShape,
});

/** A chat model: its input schema is derived from its traits (chat-schema.ts), so every chat model speaks the same wire format. */
export const chatModelShape = z.strictObject({
  ...common,
  category: z.literal('chat'),
  upstream: z.strictObject({ provider: z.enum(CHAT_PROVIDERS), endpoint: z.string().min(1) }),
  output: z.literal('text'),
  chat: chatTraits,
  price: priceRuleShape,
});

export const toolShape = z.strictObject({
  id: z.string().regex(/^tools\/[a-z0-9-]+$/, 'must be tools/<name>'),
  name: z.string().min(1),
  description: z.string().min(10),
  price: z.strictObject({ walletMicroUsd: positiveInt, prepaidMicroUsd: positiveInt }),
  walletPriceNote: z.string().min(3).optional(),
  input: jsonSchema,
  synonyms: z.array(z.string().min(1)).optional(),
  example: z.record(z.string(), z.unknown()),
});

/** A free lookup: the free price rule (0 on every rail), called with GET at /v1/tools/<name>. */
export const lookupShape = z.strictObject({
  id: z.string().regex(/^tools\/[a-z0-9-]+$/, 'must be tools/<name>'),
  name: z.string().min(1),
  description: z.string().min(10),
  summary: z.string().min(10),
  details: z.string().min(10),
  price: z.strictObject({ walletMicroUsd: z.literal(0), prepaidMicroUsd: z.literal(0) }),
  input: jsonSchema,
  synonyms: z.array(z.string().min(1)).optional(),
  example: z.record(z.string(), z.unknown()),
});

const recipeStep = z.strictObject({ model: id, input: z.record(z.string(), z.unknown()) });

export const recipeShape = z.strictObject({
  id: z.string().regex(/^recipes\/[a-z0-9-]+$/, 'must be recipes/<name>'),
  name: z.string().min(1),
  description: z.string().min(10),
  price: z.strictObject({ walletMicroUsd: positiveInt, prepaidMicroUsd: positiveInt }),
  walletPriceNote: z.string().min(3).optional(),
  randomCharacter: z.boolean(),
  image: recipeStep,
  video: recipeStep,
  motionPrompt: z.string().min(1),
  synonyms: z.array(z.string().min(1)).optional(),
  example: z.record(z.string(), z.unknown()),
});

/** One data file: `{ entries: [...] }`. Entries are checked one by one so each problem names its entry. */
export const dataFileShape = z.strictObject({ entries: z.array(z.unknown()) });
