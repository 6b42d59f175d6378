/**
 * The price rules: from a validated input to an upstream cost in exact integer arithmetic, then kasir's margin,
 * rounded up once. Every rule quotes the ceiling of what the call can cost upstream.
 */
import { choices, estimateInputTokens, outputTokenCeiling } from './chat-tokens.js';
import { countTokens, type TokenCounter } from './tokenizer.js';
import type { DurationSpec, JsonSchema, PriceRule, RateTable } from './types.js';

/** The cheapest call kasir sells ($0.0001): smaller quotes are raised to it. */
export const MIN_QUOTE_MICRO_USD = 100;
/** The dearest call kasir sells ($60): an input that would cost more is refused as invalid. */
export const MAX_QUOTE_MICRO_USD = 60_000_000;
/** 1 MP as image upstreams count it: 1024 × 1024 pixels. */
export const PIXELS_PER_MEGAPIXEL = 1024 * 1024;

/** An exact cost in micro-USD: `num / den`. */
export interface Cost {
  num: bigint;
  den: bigint;
}

/** What one rule says about one input, before the margin. */
export interface RuleQuote {
  cost: Cost;
  unit: string;
  units: number;
  /** The input that drives the price most, named in the error when the quote is above the ceiling. */
  dearField: string;
}

type Input = Record<string, unknown>;
type Props = Record<string, JsonSchema>;

const ONE_MILLION = 1_000_000n;

function frac(num: bigint | number, den: bigint | number = 1n): Cost {
  return { num: BigInt(num), den: BigInt(den) };
}

function add(a: Cost, b: Cost): Cost {
  return a.den === b.den
    ? { num: a.num + b.num, den: a.den }
    : { num: a.num * b.den + b.num * a.den, den: a.den * b.den };
}

/** Rounds a cost up after adding `marginPercent` (fractions of a percent allowed, to 0.001). */
export function withMargin(cost: Cost, marginPercent: number): number {
  const margin = BigInt(100_000 + Math.round(marginPercent * 1000));
  const num = cost.num * margin;
  const den = cost.den * 100_000n;
  return Number((num + den - 1n) / den);
}

/** A final quote: margin applied, rounded up, raised to the $0.0001 floor. */
export function finalMicroUsd(cost: Cost, marginPercent: number): number {
  return Math.max(MIN_QUOTE_MICRO_USD, withMargin(cost, marginPercent));
}

// ---------------------------------------------------------------------------------------------- rate tables

/** Every rate a table can give. */
export function leafRates(table: RateTable): number[] {
  return typeof table === 'number' ? [table] : Object.values(table.rates).flatMap(leafRates);
}

/** Keys of a rate table for an input that is absent (or an empty list), or a non-empty list or object. */
export const ABSENT_KEY = '(absent)';
export const PRESENT_KEY = '(present)';

function rateKey(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (value === undefined || value === null || (Array.isArray(value) && value.length === 0))
    return ABSENT_KEY;
  return PRESENT_KEY;
}

/**
 * The rate for this input. An absent selector field selects the table's `(absent)` rate when it has one, else the
 * highest rate of its branch (the ceiling).
 */
export function selectRate(table: RateTable, input: Input): number {
  if (typeof table === 'number') return table;
  const key = rateKey(input[table.by]);
  const next = table.rates[key] ?? (key === ABSENT_KEY ? undefined : table.rates['*']);
  return next === undefined ? Math.max(...leafRates(table)) : selectRate(next, input);
}

function firstSelector(table: RateTable): string | undefined {
  return typeof table === 'number' ? undefined : table.by;
}

// ---------------------------------------------------------------------------------------------- quantities

function numberOf(value: unknown): number | undefined {
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  if (typeof value === 'string') {
    const n = Number.parseFloat(value);
    return Number.isFinite(n) ? n : undefined;
  }
  return undefined;
}

/** The largest value a schema property allows (enum values parsed as numbers, e.g. "8s" → 8), or undefined. */
export function schemaCeiling(prop: JsonSchema | undefined): number | undefined {
  if (!prop) return undefined;
  if (Array.isArray(prop.enum)) {
    const values = prop.enum.map(numberOf).filter((n): n is number => n !== undefined);
    if (values.length) return Math.max(...values);
  }
  if (typeof prop.maximum === 'number') return prop.maximum;
  return undefined;
}

/** The smallest value a schema property allows, or undefined. */
export function schemaFloor(prop: JsonSchema | undefined): number | undefined {
  if (!prop) return undefined;
  if (Array.isArray(prop.enum)) {
    const values = prop.enum.map(numberOf).filter((n): n is number => n !== undefined);
    if (values.length) return Math.min(...values);
  }
  if (typeof prop.minimum === 'number') return prop.minimum;
  return undefined;
}

/** Seconds of output (or of input audio) a request asks for, rounded up; absent fields take their ceiling. */
export function durationSeconds(spec: DurationSpec, input: Input, props: Props, fps?: number): number {
  if (spec.fixedSeconds) return spec.fixedSeconds;
  let seconds = 0;
  if (spec.field) {
    const raw = numberOf(input[spec.field]) ?? schemaCeiling(props[spec.field]);
    const scaled = raw === undefined ? spec.ceilingSeconds : raw / (spec.scale ?? 1);
    seconds = Math.max(seconds, Math.ceil(scaled ?? 0));
  }
  if (spec.framesField) {
    const frames = numberOf(input[spec.framesField]);
    const perSecond = spec.framesPerSecond ?? fps ?? 1;
    if (frames !== undefined) seconds = Math.max(seconds, Math.ceil(frames / perSecond));
    else if (!spec.field) seconds = Math.ceil((schemaCeiling(props[spec.framesField]) ?? 0) / perSecond);
  }
  return seconds;
}

function durationField(spec: DurationSpec): string {
  return spec.field ?? spec.framesField ?? '(model)';
}

/** How many outputs: the product of the count fields (an absent field counts at its schema maximum, else 1). */
function countOf(fields: string[] | undefined, input: Input, props: Props): number {
  let count = 1;
  for (const f of fields ?? []) {
    count *= numberOf(input[f]) ?? schemaCeiling(props[f]) ?? 1;
  }
  return Math.max(1, Math.ceil(count));
}

/** Characters as a reader counts them (code points), the way TTS upstreams bill. */
export function characterCount(text: unknown): number {
  if (typeof text !== 'string') return 0;
  let surrogates = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff) surrogates++;
  }
  return text.length - surrogates;
}

function megapixelsOf(w: number, h: number): number {
  return Math.ceil((w * h) / PIXELS_PER_MEGAPIXEL);
}

function imageMegapixels(rule: Extract<PriceRule, { kind: 'per_megapixel' }>, input: Input): number {
  const size = rule.size;
  if ('fixedMegapixels' in size) return size.fixedMegapixels;
  const value = input[size.field];
  if (typeof value === 'string' && size.presets[value]) {
    const [w, h] = size.presets[value];
    return megapixelsOf(w, h);
  }
  if (value && typeof value === 'object') {
    const { width, height } = value as { width?: unknown; height?: unknown };
    if (typeof width === 'number' && typeof height === 'number') return megapixelsOf(width, height);
  }
  return Math.max(...Object.values(size.presets).map(([w, h]) => megapixelsOf(w, h)));
}

function videoPixels(rule: Extract<PriceRule, { kind: 'video_tokens' }>, input: Input): number {
  const byRes = rule.pixels[String(input[rule.resolutionField])];
  const all = byRes ? Object.values(byRes) : Object.values(rule.pixels).flatMap((r) => Object.values(r));
  const exact = byRes?.[String(input[rule.aspectRatioField])];
  return exact ?? Math.max(...all);
}

// ---------------------------------------------------------------------------------------------- the rules

type ChatTokensRule = Extract<PriceRule, { kind: 'chat_tokens' }>;

/** Input and output costs of a chat call in micro-USD × 1M (the long-context rates when the input is long). */
function chatTokenCosts(rule: ChatTokensRule, inputTokens: number, outputTokens: number) {
  const long = rule.longContext && inputTokens > rule.longContext.aboveTokens ? rule.longContext : undefined;
  return {
    inCost: BigInt(inputTokens) * BigInt(long?.inputPer1M ?? rule.inputPer1M),
    outCost: BigInt(outputTokens) * BigInt(long?.outputPer1M ?? rule.outputPer1M),
  };
}

/**
 * The upstream cost of a chat call of `inputTokens` that produced `outputTokens` (all choices together): what a metered
 * stream has delivered so far. The same formula as the quote's, with the output counted instead of its ceiling.
 */
export function chatTokensCost(rule: ChatTokensRule, inputTokens: number, outputTokens: number): Cost {
  const { inCost, outCost } = chatTokenCosts(rule, inputTokens, outputTokens);
  return frac(inCost + outCost, ONE_MILLION);
}

/**
 * The upstream cost of one validated input. Formulas (rates in micro-USD, `per` default 1):
 * - flat: rate (unit `call` or `video`, the rate chosen by the input's tier, e.g. duration 5 or 10)
 * - per_image: rate × count (count = product of e.g. `n`, `num_images`) + extras (prompt tokens, reference images)
 * - per_megapixel: ceil(width × height / 2^20) × rate × count (or first MP at its own rate, then rate per further MP)
 * - per_second: seconds × rate / per (seconds from the input: `duration`, "8s", frames / fps, or a fixed length)
 * - video_tokens: width × height × fps × seconds / 1024 × rate / 1M
 * - per_character: characters × rate / per
 * - per_minute: ceil(seconds / 60) × rate / per (seconds = declared input audio length, else its ceiling)
 * - chat_tokens: (input tokens × input rate + max output tokens × n × output rate) / 1M
 * Tokens are counted with `counter`, the tokenizer unless the caller prices at a bound.
 */
export function evaluateRule(
  rule: PriceRule,
  input: Input,
  props: Props,
  counter: TokenCounter = countTokens,
): RuleQuote {
  switch (rule.kind) {
    case 'flat':
      return {
        cost: frac(selectRate(rule.rate, input)),
        unit: rule.unit,
        units: 1,
        dearField: firstSelector(rule.rate) ?? '(model)',
      };
    case 'per_image': {
      const count = countOf(rule.count, input, props);
      let cost = frac(BigInt(count) * BigInt(selectRate(rule.rate, input)));
      for (const extra of rule.extras ?? []) {
        const value = input[extra.field];
        if (extra.kind === 'prompt_tokens' && typeof value === 'string' && value.length > 0) {
          cost = add(cost, frac(BigInt(counter(value)) * BigInt(extra.ratePer1M), ONE_MILLION));
        } else if (extra.kind === 'per_item' && Array.isArray(value)) {
          cost = add(cost, frac(value.length * extra.rate));
        }
      }
      return {
        cost,
        unit: 'image',
        units: count,
        dearField: rule.count?.[0] ?? firstSelector(rule.rate) ?? '(model)',
      };
    }
    case 'per_megapixel': {
      const mp = imageMegapixels(rule, input);
      const count = countOf(rule.count, input, props);
      const rate = BigInt(selectRate(rule.rate, input));
      const perImage =
        rule.firstMegapixelRate === undefined
          ? BigInt(mp) * rate
          : BigInt(rule.firstMegapixelRate) + BigInt(mp - 1) * rate;
      const dear = 'field' in rule.size ? rule.size.field : (rule.count?.[0] ?? '(model)');
      return { cost: frac(perImage * BigInt(count)), unit: 'megapixel', units: mp * count, dearField: dear };
    }
    case 'per_second': {
      const seconds = durationSeconds(rule.duration, input, props);
      return {
        cost: frac(BigInt(seconds) * BigInt(selectRate(rule.rate, input)), rule.per ?? 1),
        unit: 'second',
        units: seconds,
        dearField: durationField(rule.duration),
      };
    }
    case 'video_tokens': {
      const seconds = durationSeconds(rule.duration, input, props, rule.fps);
      const tokensX1024 = BigInt(videoPixels(rule, input)) * BigInt(rule.fps) * BigInt(seconds);
      return {
        cost: frac(tokensX1024 * BigInt(selectRate(rule.rate, input)), 1024n * ONE_MILLION),
        unit: 'video_token',
        units: Math.ceil(Number(tokensX1024) / 1024),
        dearField: durationField(rule.duration),
      };
    }
    case 'per_character': {
      const chars = characterCount(input[rule.field]);
      return {
        cost: frac(BigInt(chars) * BigInt(selectRate(rule.rate, input)), rule.per),
        unit: 'character',
        units: chars,
        dearField: rule.field,
      };
    }
    case 'per_minute': {
      const minutes = Math.ceil(durationSeconds(rule.duration, input, props) / 60);
      return {
        cost: frac(BigInt(minutes) * BigInt(selectRate(rule.rate, input)), rule.per ?? 1),
        unit: 'minute',
        units: minutes,
        dearField: durationField(rule.duration),
      };
    }
    case 'chat_tokens': {
      const inputTokens = estimateInputTokens(input, counter);
      const outputTokens = outputTokenCeiling(input) * choices(input);
      const { inCost, outCost } = chatTokenCosts(rule, inputTokens, outputTokens);
      const outField =
        input.max_tokens === undefined && input.max_completion_tokens !== undefined
          ? 'max_completion_tokens'
          : 'max_tokens';
      return {
        cost: frac(inCost + outCost, ONE_MILLION),
        unit: 'token',
        units: inputTokens + outputTokens,
        dearField: outCost >= inCost ? outField : 'messages',
      };
    }
  }
}
