/**
 * Settings of the model lists: the operator's price for self-hosted models (per million tokens, one default and
 * per-model overrides), how often the self-hosted servers and the configured providers are asked for their model
 * lists, and whether the providers are asked at all.
 */
import { z } from 'zod';
import type { SettingsArea } from './setting.js';

export const modelsEnvShape = {
  SELF_HOSTED_PRICE_PER_MTOK: z.string().default('0.10:0.40'),
  SELF_HOSTED_PRICES: z.string().default(''),
  MODEL_LIST_REFRESH_SECONDS: z.coerce.number().int().min(0).max(86_400).default(900),
  UPSTREAM_MODEL_CHECK: z
    .enum(['true', 'false', '1', '0', 'yes', 'no', ''])
    .default('true')
    .transform((v) => v !== 'false' && v !== '0' && v !== 'no'),
} as Record<string, z.ZodType>;

/** A per-token price in integer micro-USD per million tokens. */
export interface TokenPrice {
  inputPer1M: number;
  outputPer1M: number;
}

export interface ModelsConfig {
  /** The price of a self-hosted model with no override (SELF_HOSTED_PRICE_PER_MTOK). */
  selfHostedPrice: TokenPrice;
  /** Overrides by the server's model id (`llama3.2:latest`) or kasir's id (`ollama/llama3.2:latest`). */
  selfHostedPrices: Record<string, TokenPrice>;
  /** Seconds between two readings of every model list; 0 reads them once, at start-up. */
  refreshSeconds: number;
  /** Whether configured providers are asked which catalog models they still serve. */
  upstreamCheck: boolean;
}

/** USD with at most 6 decimals, as integer micro-USD (worked on the digits: no float rounding). */
function usdToMicro(text: string): number | undefined {
  const m = /^(\d{1,6})(?:\.(\d{1,6}))?$/.exec(text.trim());
  if (!m) return undefined;
  return Number(m[1]) * 1_000_000 + Number((m[2] ?? '').padEnd(6, '0'));
}

/** `in:out` (USD per million input and output tokens), e.g. `0.10:0.40`. */
function parsePrice(text: string): TokenPrice | undefined {
  const [input, output, extra] = text.split(':');
  if (input === undefined || output === undefined || extra !== undefined) return undefined;
  const inputPer1M = usdToMicro(input);
  const outputPer1M = usdToMicro(output);
  return inputPer1M === undefined || outputPer1M === undefined ? undefined : { inputPer1M, outputPer1M };
}

const PRICE_FORMAT = 'is not "<input USD>:<output USD>" per million tokens (e.g. "0.10:0.40")';

function parseOverrides(raw: string, problems: string[]): Record<string, TokenPrice> {
  if (!raw.trim()) return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    problems.push('SELF_HOSTED_PRICES: must be a JSON object of model id to "<input USD>:<output USD>"');
    return {};
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) {
    problems.push('SELF_HOSTED_PRICES: must be a JSON object of model id to "<input USD>:<output USD>"');
    return {};
  }
  const out: Record<string, TokenPrice> = {};
  for (const [model, value] of Object.entries(parsed)) {
    const price = typeof value === 'string' ? parsePrice(value) : undefined;
    if (price) out[model] = price;
    else problems.push(`SELF_HOSTED_PRICES: "${model}" ${PRICE_FORMAT}`);
  }
  return out;
}

export function parseModels(e: Record<string, unknown>, problems: string[]): ModelsConfig {
  const raw = String(e.SELF_HOSTED_PRICE_PER_MTOK ?? '');
  const selfHostedPrice = parsePrice(raw);
  if (!selfHostedPrice) problems.push(`SELF_HOSTED_PRICE_PER_MTOK: "${raw}" ${PRICE_FORMAT}`);
  return {
    selfHostedPrice: selfHostedPrice ?? { inputPer1M: 0, outputPer1M: 0 },
    selfHostedPrices: parseOverrides(String(e.SELF_HOSTED_PRICES ?? ''), problems),
    refreshSeconds: Number(e.MODEL_LIST_REFRESH_SECONDS),
    upstreamCheck: e.UPSTREAM_MODEL_CHECK as boolean,
  };
}

export const modelsSettings: SettingsArea = {
  name: 'models',
  shape: modelsEnvShape,
  rows: [
    {
      vars: ['SELF_HOSTED_PRICE_PER_MTOK'],
      default: '`0.10:0.40`',
      meaning:
        "The price of every self-hosted model (see *Self-hosted models*): `<input USD>:<output USD>` per million tokens. Kasir's margin is not added (only a `PROVIDER_MARGIN_PERCENT` entry naming `ollama` or `self-hosted` is).",
    },
    {
      vars: ['SELF_HOSTED_PRICES'],
      default: '—',
      meaning:
        'Per-model overrides, JSON: `{"llama3.2:latest": "0.05:0.20", "self-hosted/Qwen/Qwen2.5-7B-Instruct": "0.30:0.90"}`, keyed by the server\'s model id (Ollama\'s `:latest` may be left out) or kasir\'s id.',
    },
    {
      vars: ['MODEL_LIST_REFRESH_SECONDS'],
      default: '`900`',
      meaning:
        'How often the model lists of self-hosted servers and configured providers are read again (`0`: only at start-up). Start-up never waits for them.',
    },
    {
      vars: ['UPSTREAM_MODEL_CHECK'],
      default: '`true`',
      meaning:
        'Ask each configured provider for its model list (free, read-only) and show catalog models it does not list as `available: false`, refused before payment (503 `unavailable`). A list that cannot be read changes nothing.',
    },
  ],
};
