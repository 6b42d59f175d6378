/** What kasir sells, as types: catalog entries (models and tools), quotes, and the Catalog the checkout asks. */
import type { ProviderName } from '../config.js';
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
}

export interface ChatTraits {
  contextLength: number | null;
  maxOutputTokens: number | null;
  vision: boolean;
  tools: boolean;
  /** Values `reasoning_effort` accepts on this model; absent when the model has no such control. */
  reasoningEffort?: string[];
  /** True where the upstream requires max_tokens (the caller must send it). */
  maxTokensRequired?: boolean;
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
}

export interface ToolEntry extends EntryBase {
  kind: 'tool';
  /** Flat prices per call in micro-USD. Where the spec shows no wallet price, wallet = prepaid (noted in `walletPriceNote`). */
  price: { walletMicroUsd: number; prepaidMicroUsd: number };
  walletPriceNote?: string;
}

export type CatalogEntry = ModelEntry | ToolEntry;

export type Validation<T = Record<string, unknown>> =
  | { ok: true; value: T }
  | { ok: false; errors: FieldError[] };

/**
 * The catalog as the rest of kasir sees it. Pure: no I/O after load.
 * `validate` applies schema defaults and returns per-field errors; `quote` expects a validated input and returns
 * the ceiling of what the call can cost for that price class.
 */
export interface Catalog {
  entries(): readonly CatalogEntry[];
  models(): readonly ModelEntry[];
  tools(): readonly ToolEntry[];
  /** By id or alias (case-sensitive ids; aliases such as a full run id). */
  find(id: string): CatalogEntry | undefined;
  /** The three ids closest to an unknown id, for 404 messages. */
  suggest(id: string): string[];
  validate(entry: CatalogEntry, input: unknown): Validation;
  quote(entry: CatalogEntry, input: Record<string, unknown>, priceClass: PriceClass): Quote;
}
