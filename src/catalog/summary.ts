/** The price summary of an entry for /v1/models and /v1/consult: unit, rate, and the cheapest and dearest call. */
import { REPLY_PRIMING_TOKENS, TOKENS_PER_MESSAGE } from './chat-tokens.js';
import {
  type Cost,
  finalMicroUsd,
  leafRates,
  MAX_QUOTE_MICRO_USD,
  MIN_QUOTE_MICRO_USD,
  PIXELS_PER_MEGAPIXEL,
  schemaCeiling,
  schemaFloor,
  withMargin,
} from './price-rules.js';
import {
  type CatalogEntry,
  type DurationSpec,
  isFree,
  type JsonSchema,
  type ModelEntry,
  type PriceRule,
} from './types.js';

export interface PriceSummary {
  /** What is counted (`call`, `image`, `megapixel`, `second`, `video_token`, `character`, `minute`, `token`). */
  unit: string;
  /** The highest rate of the entry after kasir's margin, in micro-USD per `per` units (rounded up). */
  rateMicroUsd: number;
  per: number;
  /** Chat only: the input-token rate per `per` tokens. */
  inputRateMicroUsd?: number;
  /** Tools only: the prepaid-key price (rateMicroUsd is the wallet price). */
  prepaidMicroUsd?: number;
  minMicroUsd: number;
  maxMicroUsd: number;
}

type Props = Record<string, JsonSchema>;
type Range = [number, number];

function propsOf(entry: CatalogEntry): Props {
  return ((entry.input as { properties?: Props }).properties ?? {}) as Props;
}

function range(prop: JsonSchema | undefined, fallback: Range): Range {
  return [schemaFloor(prop) ?? fallback[0], schemaCeiling(prop) ?? fallback[1]];
}

function countRange(fields: string[] | undefined, props: Props): Range {
  let lo = 1;
  let hi = 1;
  for (const f of fields ?? []) {
    const [a, b] = range(props[f], [1, 1]);
    lo *= Math.max(1, a);
    hi *= Math.max(1, b);
  }
  return [lo, hi];
}

function secondsRange(spec: DurationSpec, props: Props, fps?: number): Range {
  if (spec.fixedSeconds) return [spec.fixedSeconds, spec.fixedSeconds];
  let lo = Number.POSITIVE_INFINITY;
  let hi = 0;
  if (spec.field) {
    const scale = spec.scale ?? 1;
    const ceiling = spec.ceilingSeconds ?? 0;
    const [a, b] = range(props[spec.field], [1, ceiling * scale]);
    lo = Math.min(lo, Math.ceil(a / scale));
    hi = Math.max(hi, Math.ceil(b / scale), ceiling);
  }
  if (spec.framesField) {
    const perSecond = spec.framesPerSecond ?? fps ?? 1;
    const [a, b] = range(props[spec.framesField], [perSecond, perSecond]);
    if (!spec.field) lo = Math.min(lo, Math.ceil(a / perSecond));
    hi = Math.max(hi, Math.ceil(b / perSecond));
  }
  return [Number.isFinite(lo) ? lo : hi, hi];
}

function megapixelRange(rule: Extract<PriceRule, { kind: 'per_megapixel' }>, props: Props): Range {
  if ('fixedMegapixels' in rule.size) return [rule.size.fixedMegapixels, rule.size.fixedMegapixels];
  const mps = Object.values(rule.size.presets).map(([w, h]) => Math.ceil((w * h) / PIXELS_PER_MEGAPIXEL));
  let hi = Math.max(...mps);
  // A custom {width, height} may be larger than any preset.
  const branches = (props[rule.size.field]?.anyOf as JsonSchema[] | undefined) ?? [];
  for (const b of branches) {
    const p = (b.properties ?? {}) as Props;
    const w = schemaCeiling(p.width);
    const h = schemaCeiling(p.height);
    if (w && h) hi = Math.max(hi, Math.ceil((w * h) / PIXELS_PER_MEGAPIXEL));
  }
  return [Math.min(...mps), hi];
}

/** Cheapest and dearest upstream cost of a rule over every valid input (an envelope: tiers and amounts vary freely). */
function ruleBounds(entry: ModelEntry, rule: PriceRule): [Cost, Cost] {
  const props = propsOf(entry);
  const rates = 'rate' in rule ? leafRates(rule.rate) : [];
  const lo = Math.min(...rates);
  const hi = Math.max(...rates);
  const c = (n: number, d = 1): Cost => ({ num: BigInt(Math.round(n)), den: BigInt(d) });
  switch (rule.kind) {
    case 'flat':
      return [c(lo), c(hi)];
    case 'per_image': {
      const [a, b] = countRange(rule.count, props);
      let extraHi = 0;
      for (const x of rule.extras ?? []) {
        const p = props[x.field];
        if (x.kind === 'prompt_tokens' && typeof p?.maxLength === 'number')
          extraHi += (p.maxLength * x.ratePer1M) / 1e6;
        if (x.kind === 'per_item' && typeof p?.maxItems === 'number') extraHi += p.maxItems * x.rate;
      }
      return [c(lo * a), c(hi * b + Math.ceil(extraHi))];
    }
    case 'per_megapixel': {
      const [ma, mb] = megapixelRange(rule, props);
      const [a, b] = countRange(rule.count, props);
      const first = rule.firstMegapixelRate;
      const perImage = (mp: number, rate: number) =>
        first === undefined ? mp * rate : first + (mp - 1) * rate;
      return [c(perImage(ma, lo) * a), c(perImage(mb, hi) * b)];
    }
    case 'per_second': {
      const [a, b] = secondsRange(rule.duration, props);
      return [c(a * lo, rule.per ?? 1), c(b * hi, rule.per ?? 1)];
    }
    case 'video_tokens': {
      const [a, b] = secondsRange(rule.duration, props, rule.fps);
      const pixels = Object.values(rule.pixels).flatMap((r) => Object.values(r));
      const tokens = (px: number, s: number) => px * rule.fps * s;
      return [
        c(tokens(Math.min(...pixels), a) * lo, 1024 * 1e6),
        c(tokens(Math.max(...pixels), b) * hi, 1024 * 1e6),
      ];
    }
    case 'per_character': {
      const p = props[rule.field];
      const max = typeof p?.maxLength === 'number' ? p.maxLength : Number.POSITIVE_INFINITY;
      return [
        c(lo * Math.max(1, Number(p?.minLength ?? 1)), rule.per),
        c(Number.isFinite(max) ? hi * max : 1e15, rule.per),
      ];
    }
    case 'per_minute': {
      const [a, b] = secondsRange(rule.duration, props);
      return [c(Math.ceil(a / 60) * lo, rule.per ?? 1), c(Math.ceil(b / 60) * hi, rule.per ?? 1)];
    }
    case 'chat_tokens': {
      const traits = entry.chat;
      const minIn = REPLY_PRIMING_TOKENS + TOKENS_PER_MESSAGE + 1;
      const inRate = Math.max(rule.inputPer1M, rule.longContext?.inputPer1M ?? 0);
      const outRate = Math.max(rule.outputPer1M, rule.longContext?.outputPer1M ?? 0);
      const maxIn = traits?.contextLength ?? 1e9;
      const maxOut = (traits?.maxOutputTokens ?? 1e9) * 10;
      return [c(minIn * rule.inputPer1M + rule.outputPer1M, 1e6), c(maxIn * inRate + maxOut * outRate, 1e6)];
    }
  }
}

function ruleUnit(rule: PriceRule): { unit: string; per: number } {
  switch (rule.kind) {
    case 'flat':
      return { unit: rule.unit, per: 1 };
    case 'per_image':
      return { unit: 'image', per: 1 };
    case 'per_megapixel':
      return { unit: 'megapixel', per: 1 };
    case 'per_second':
      return { unit: 'second', per: rule.per ?? 1 };
    case 'video_tokens':
      return { unit: 'video_token', per: 1_000_000 };
    case 'per_character':
      return { unit: 'character', per: rule.per };
    case 'per_minute':
      return { unit: 'minute', per: rule.per ?? 1 };
    case 'chat_tokens':
      return { unit: 'token', per: 1_000_000 };
  }
}

function clampMax(microUsd: number): number {
  return Math.min(MAX_QUOTE_MICRO_USD, Math.max(MIN_QUOTE_MICRO_USD, microUsd));
}

/**
 * The summary of one entry at the given margin (tools and recipes carry their own flat prices, without margin; a
 * recipe's is its price with its own steps).
 */
export function priceSummary(entry: CatalogEntry, marginPercent: number): PriceSummary {
  if (isFree(entry)) return { unit: 'call', per: 1, rateMicroUsd: 0, minMicroUsd: 0, maxMicroUsd: 0 };
  if (entry.kind !== 'model') {
    const { walletMicroUsd, prepaidMicroUsd } = entry.price;
    return {
      unit: 'call',
      per: 1,
      rateMicroUsd: walletMicroUsd,
      prepaidMicroUsd,
      minMicroUsd: Math.min(walletMicroUsd, prepaidMicroUsd),
      maxMicroUsd: Math.max(walletMicroUsd, prepaidMicroUsd),
    };
  }
  const rule = entry.price;
  if (!rule) throw new Error(`model ${entry.id} has no price rule`);
  const [lo, hi] = ruleBounds(entry, rule);
  const { unit, per } = ruleUnit(rule);
  const top =
    rule.kind === 'chat_tokens'
      ? Math.max(rule.outputPer1M, rule.longContext?.outputPer1M ?? 0)
      : Math.max(...leafRates(rule.rate), rule.kind === 'per_megapixel' ? (rule.firstMegapixelRate ?? 0) : 0);
  const summary: PriceSummary = {
    unit,
    per,
    rateMicroUsd: withMargin({ num: BigInt(top), den: 1n }, marginPercent),
    minMicroUsd: clampMax(finalMicroUsd(lo, marginPercent)),
    maxMicroUsd: clampMax(finalMicroUsd(hi, marginPercent)),
  };
  if (rule.kind === 'chat_tokens') {
    const inTop = Math.max(rule.inputPer1M, rule.longContext?.inputPer1M ?? 0);
    summary.inputRateMicroUsd = withMargin({ num: BigInt(inTop), den: 1n }, marginPercent);
  }
  return summary;
}
