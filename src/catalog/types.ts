/**
 * What kasir offers, as types: catalog entries (models, tools and recipes sold, free lookups given), quotes, and the
 * Catalog the checkout asks.
 */
import type { ProviderName } from '../config/providers.js';
import type { FieldError } from '../http/errors.js';

export const CATEGORIES = [
  'text-to-image',
  'text-to-video',
  'image-to-video',
  'video-to-video',
  'text-to-speech',
  'speech-to-text',
  'music',
  'chat',
] as const;
export type Category = (typeof CATEGORIES)[number];

/** Which price list applies: the pay-per-call challenge price (wallet rails) or the prepaid-key price. */
export type PriceClass = 'wallet' | 'prepaid';

/** A price for one exact input, in integer micro-USD (1 USD = 1,000,000). */
export interface Quote {
  costMicroUsd: number;
  /** What is counted, e.g. `call`, `second`, `image`, `1k_characters`, `minute`, `token`. */
  unit: string;
  /** How many of `unit` the quote covers (the ceiling for dynamic prices). */
  units: number;
}

/** A JSON Schema object (draft 2020-12 subset ajv compiles), with `fileRef: true` marking file inputs. */
export type JsonSchema = Record<string, unknown>;

interface EntryBase {
  /** Stable id: `<owner>/<model>` for models, `tools/<name>` for tools. */
  id: string;
  aliases?: string[];
  name: string;
  description: string;
  /** The input schema of the paid route for this entry (additional properties allowed unless stated). */
  input: JsonSchema;
  /** Extra words (English and Indonesian) that /v1/consult matches this entry by. */
  synonyms?: string[];
  /** A minimal valid request body (without `model`), used by /v1/consult and as the default request of /v1/price. */
  example?: Record<string, unknown>;
}

/**
 * A rate in integer micro-USD, either fixed or chosen by the value of one input field.
 * `rates` keys are the field's values as strings (`true`/`false` for booleans); `*` matches any other value;
 * `(present)` matches a non-empty list or an object, `(absent)` an absent field or an empty list.
 * A field that is absent (and has no default) selects the `(absent)` rate, else the highest rate: a quote is a ceiling.
 */
export type RateTable = number | { by: string; rates: Record<string, RateTable> };

/** How long the output (or input audio) is, in seconds. */
export interface DurationSpec {
  /** Input field holding the length: a number, or a string such as `"5"` or `"8s"`. */
  field?: string;
  /** Divide the field value by this to get seconds (1000 for a field in milliseconds). */
  scale?: number;
  /** Seconds used when `field` is absent and its schema gives no default or maximum. */
  ceilingSeconds?: number;
  /** A frame-count field; seconds = ceil(frames / framesPerSecond) (with `fps` of the rule when not given). */
  framesField?: string;
  framesPerSecond?: number;
  /** Models with one fixed output length. */
  fixedSeconds?: number;
}

/** Charges added to a per-image rule: prompt tokens, or a fee per item of an array input (reference images). */
export type PriceExtra =
  | { kind: 'prompt_tokens'; field: string; ratePer1M: number }
  | { kind: 'per_item'; field: string; rate: number };

/**
 * How a model's upstream cost is computed from its validated input. Rates are integer micro-USD per `per` units
 * (default 1); the cost is rounded up once, after the provider margin. See price-rules.ts for each formula.
 */
export type PriceRule =
  | { kind: 'flat'; unit: 'call' | 'video'; rate: RateTable }
  | { kind: 'per_image'; rate: RateTable; count?: string[]; extras?: PriceExtra[] }
  | {
      kind: 'per_megapixel';
      rate: RateTable;
      /** When set, the first megapixel costs this and each further one `rate`. */
      firstMegapixelRate?: number;
      size: { field: string; presets: Record<string, [number, number]> } | { fixedMegapixels: number };
      count?: string[];
    }
  | { kind: 'per_second'; rate: RateTable; per?: number; duration: DurationSpec }
  | {
      kind: 'video_tokens';
      /** Micro-USD per 1M video tokens; tokens = width × height × fps × seconds / 1024. */
      rate: RateTable;
      resolutionField: string;
      aspectRatioField: string;
      fps: number;
      duration: DurationSpec;
      /** Output pixels (width × height) by resolution, then by aspect ratio. */
      pixels: Record<string, Record<string, number>>;
    }
  | { kind: 'per_character'; rate: RateTable; per: number; field: string }
  | { kind: 'per_minute'; rate: RateTable; per?: number; duration: DurationSpec }
  | {
      kind: 'chat_tokens';
      inputPer1M: number;
      outputPer1M: number;
      /** Higher rates for the whole call once the estimated input passes `aboveTokens`. */
      longContext?: { aboveTokens: number; inputPer1M: number; outputPer1M: number };
    };

export interface ChatTraits {
  contextLength: number | null;
  maxOutputTokens: number | null;
  vision: boolean;
  tools: boolean;
  /** Values `reasoning_effort` accepts on this model; absent when the model has no such control. */
  reasoningEffort?: string[];
  /** Request fields the upstream answers with an error on this model (xAI's reasoning models: stop, penalties). */
  refusedFields?: string[];
  /** True where the upstream requires max_tokens (the caller must send it). */
  maxTokensRequired?: boolean;
  /** The field the upstream reads the output limit from (OpenAI's reasoning models take max_completion_tokens). */
  outputLimitField?: 'max_tokens' | 'max_completion_tokens';
}

export interface ModelEntry extends EntryBase {
  kind: 'model';
  category: Category;
  /** The capability route this model is sold on, e.g. `/v1/chat/completions`, `/v1/images/generations`. */
  route: string;
  /** Upstream provider and its id/path of the model; `fallbacks` are tried in order before the first byte. */
  upstream: { provider: ProviderName; endpoint: string };
  fallbacks?: Array<{ provider: ProviderName; endpoint: string }>;
  output: 'image' | 'video' | 'audio' | 'text' | 'json';
  /** Set when the upstream price was not seen on the provider's own price page. */
  priceUnconfirmed?: boolean;
  chat?: ChatTraits;
  /** The upstream cost formula (before kasir's margin); every entry loaded from the catalog data has one. */
  price?: PriceRule;
  /** Where the upstream price comes from. */
  priceSource?: string;
  /** Inputs kasir reads for pricing only (e.g. a declared `duration`); adapters do not send them upstream. */
  localInputs?: string[];
  /** The day (YYYY-MM-DD, UTC) the provider deprecated the model, or true when it says so without a date. */
  deprecated?: string | true;
  /** The day (YYYY-MM-DD, UTC) the provider stops serving it: from then on kasir refuses it (410 model_retired). */
  sunset?: string;
  /** The catalog id to use instead. */
  successor?: string;
  /** Why this server cannot sell the model although its provider is configured (e.g. the API no longer serves it). */
  unavailable?: string;
  /** Where the lifecycle dates or the reason come from. */
  lifecycleSource?: string;
}

/** An entry offered at flat prices by name at its own path: a tool, a recipe or a free lookup. */
interface FlatPricedEntry extends EntryBase {
  /**
   * Flat prices per call in micro-USD. Where the spec shows no wallet price, wallet = prepaid (noted in
   * `walletPriceNote`). Both 0 is the free price rule (see `isFree`).
   */
  price: { walletMicroUsd: number; prepaidMicroUsd: number };
  walletPriceNote?: string;
  /** Where it is offered: `POST /v1/tools/<name>`, `POST /v1/recipes/<name>`, `GET /v1/tools/<lookup>`. */
  path?: string;
}

export interface ToolEntry extends FlatPricedEntry {
  kind: 'tool';
}

/**
 * A free lookup: given, not sold (price 0 on every rail: no 402, no charge, no payment headers), called with GET
 * and its input as query parameters, and read-only (it answers from data kasir holds, changing nothing).
 */
export interface LookupEntry extends FlatPricedEntry {
  kind: 'lookup';
  path: string;
  method: 'GET';
  readOnly: true;
  /** One line for the API reference (OpenAPI `summary`); `description` is the short text consult matches. */
  summary: string;
  /** The full behaviour, for the API reference (OpenAPI `description`). */
  details: string;
}

/** One model step of a recipe: the catalog model it runs by default and the inputs it always gets. */
export interface RecipeStep {
  model: string;
  input: Record<string, unknown>;
}

/**
 * A recipe: a multi-model pipeline (prompt → image → video, or a random character → image → video) sold as one
 * call at its flat price; overriding a step with a dearer model raises the quote to the sum of the steps' quotes.
 */
export interface RecipeEntry extends FlatPricedEntry {
  kind: 'recipe';
  /** True when the recipe writes its own prompt (a random character) and takes none. */
  randomCharacter: boolean;
  image: RecipeStep;
  video: RecipeStep;
  /** The video step's prompt when the caller gives no motionPrompt; `{prompt}` is replaced by the image prompt. */
  motionPrompt: string;
}

export type CatalogEntry = ModelEntry | ToolEntry | RecipeEntry | LookupEntry;

/** The field answers and errors name an entry's id in: `model`, `tool` or `recipe` (a lookup is a tool). */
export function idField(entry: CatalogEntry): 'model' | 'tool' | 'recipe' {
  return entry.kind === 'model' ? 'model' : entry.kind === 'lookup' ? 'tool' : entry.kind;
}

/** True for an entry under the free price rule (0 on every rail): the checkout gives it without any payment. */
export function isFree(entry: CatalogEntry): boolean {
  return entry.kind !== 'model' && entry.price.walletMicroUsd === 0 && entry.price.prepaidMicroUsd === 0;
}

/** True for an entry whose call only reads (a lookup: it changes nothing, anywhere). */
export function isReadOnly(entry: CatalogEntry): boolean {
  return entry.kind === 'lookup' && entry.readOnly;
}

/** How an entry is called: GET with its input as query parameters (a lookup), else POST with a JSON body. */
export function methodOf(entry: CatalogEntry): 'GET' | 'POST' {
  return entry.kind === 'lookup' ? entry.method : 'POST';
}

/** Where an entry is called: a model at its category's route, anything else at its own path. */
export function pathOf(entry: CatalogEntry): string {
  return entry.kind === 'model' ? entry.route : (entry.path ?? `/v1/${entry.id}`);
}

export type Validation<T = Record<string, unknown>> =
  | {
      ok: true;
      value: T;
      /** A model's quote, worked out while validating (every price class pays it); what `quote` returns. */
      modelQuote?: Quote;
    }
  | { ok: false; errors: FieldError[] };

/**
 * The catalog as the rest of kasir sees it. Pure: no I/O after load.
 * `validate` applies schema defaults and returns per-field errors; `quote` expects a validated input and returns
 * the ceiling of what the call can cost for that price class.
 */
export interface Catalog {
  /** The entries sold for a price: models, tools and recipes. */
  entries(): readonly CatalogEntry[];
  models(): readonly ModelEntry[];
  tools(): readonly ToolEntry[];
  recipes(): readonly RecipeEntry[];
  /** The entries given free (the lookups). */
  lookups(): readonly LookupEntry[];
  /** Everything kasir offers, sold or given: `entries()`, then `lookups()`. */
  offered(): readonly CatalogEntry[];
  /** By id or alias (case-sensitive ids; aliases such as a full run id); free entries too. */
  find(id: string): CatalogEntry | undefined;
  /** The three ids closest to an unknown id, for 404 messages. */
  suggest(id: string): string[];
  /**
   * Work validation needs done first that could hold the event loop, done a slice at a time: the token count of a
   * long chat input. Undefined when there is none (a body of `bodyBytes` this small is counted on the spot).
   */
  prepare?(entry: CatalogEntry, input: Record<string, unknown>, bodyBytes: number): Promise<void> | undefined;
  /** An entry called with GET (see `methodOf`) is validated as query parameters: values coerced to its schema's types. */
  validate(entry: CatalogEntry, input: unknown): Validation;
  quote(entry: CatalogEntry, input: Record<string, unknown>, priceClass: PriceClass): Quote;
  /**
   * For an entry priced per output token: what the call costs had it produced only `outputTokens` (all choices),
   * margin applied and rounded as a quote is, for a stream paid as it is delivered. Undefined for other entries.
   */
  outputPrice(
    entry: CatalogEntry,
    input: Record<string, unknown>,
  ): ((outputTokens: number) => number) | undefined;
}
