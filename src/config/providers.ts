/**
 * Settings of the upstream providers: each one's key and base URL (named as in that provider's ecosystem), how long
 * an upstream may take and how often it is retried, and the margin added to upstream prices.
 */
import { z } from 'zod';
import { int, optionalString, type SettingRow, type SettingsArea, type Values } from './setting.js';

/** Upstream provider settings: a key and a base-URL override each, named as in that provider's ecosystem. */
export const PROVIDER_ENV = {
  openai: { key: 'OPENAI_API_KEY', baseUrl: 'OPENAI_BASE_URL', defaultBaseUrl: 'https://api.openai.com/v1' },
  anthropic: {
    key: 'ANTHROPIC_API_KEY',
    baseUrl: 'ANTHROPIC_BASE_URL',
    defaultBaseUrl: 'https://api.anthropic.com',
  },
  google: {
    key: 'GEMINI_API_KEY',
    baseUrl: 'GEMINI_BASE_URL',
    defaultBaseUrl: 'https://generativelanguage.googleapis.com',
  },
  openrouter: {
    key: 'OPENROUTER_API_KEY',
    baseUrl: 'OPENROUTER_BASE_URL',
    defaultBaseUrl: 'https://openrouter.ai/api/v1',
  },
  together: {
    key: 'TOGETHER_API_KEY',
    baseUrl: 'TOGETHER_BASE_URL',
    defaultBaseUrl: 'https://api.together.xyz/v1',
  },
  groq: { key: 'GROQ_API_KEY', baseUrl: 'GROQ_BASE_URL', defaultBaseUrl: 'https://api.groq.com/openai/v1' },
  deepseek: {
    key: 'DEEPSEEK_API_KEY',
    baseUrl: 'DEEPSEEK_BASE_URL',
    defaultBaseUrl: 'https://api.deepseek.com',
  },
  xai: { key: 'XAI_API_KEY', baseUrl: 'XAI_BASE_URL', defaultBaseUrl: 'https://api.x.ai/v1' },
  fal: { key: 'FAL_KEY', baseUrl: 'FAL_BASE_URL', defaultBaseUrl: 'https://queue.fal.run' },
  replicate: {
    key: 'REPLICATE_API_TOKEN',
    baseUrl: 'REPLICATE_BASE_URL',
    defaultBaseUrl: 'https://api.replicate.com',
  },
  elevenlabs: {
    key: 'ELEVENLABS_API_KEY',
    baseUrl: 'ELEVENLABS_BASE_URL',
    defaultBaseUrl: 'https://api.elevenlabs.io',
  },
  runway: {
    key: 'RUNWAYML_API_SECRET',
    baseUrl: 'RUNWAY_BASE_URL',
    defaultBaseUrl: 'https://api.dev.runwayml.com',
  },
  minimax: { key: 'MINIMAX_API_KEY', baseUrl: 'MINIMAX_BASE_URL', defaultBaseUrl: 'https://api.minimax.io' },
  assemblyai: {
    key: 'ASSEMBLYAI_API_KEY',
    baseUrl: 'ASSEMBLYAI_BASE_URL',
    defaultBaseUrl: 'https://api.assemblyai.com',
  },
  deepgram: {
    key: 'DEEPGRAM_API_KEY',
    baseUrl: 'DEEPGRAM_BASE_URL',
    defaultBaseUrl: 'https://api.deepgram.com',
  },
  ollama: { key: 'OLLAMA_API_KEY', baseUrl: 'OLLAMA_BASE_URL', defaultBaseUrl: '' },
  /** Any OpenAI-compatible server the operator runs (vLLM, llama.cpp server, LM Studio); its base URL ends at /v1. */
  'self-hosted': { key: 'SELF_HOSTED_API_KEY', baseUrl: 'SELF_HOSTED_BASE_URL', defaultBaseUrl: '' },
} as const;
export type ProviderName = keyof typeof PROVIDER_ENV;

/**
 * The self-hosted servers kasir reads model lists from, each named as its id prefix and provider: configured by
 * their base URL alone (the key is optional).
 */
export const SELF_HOSTED_SERVERS = ['ollama', 'self-hosted'] as const;
export type SelfHostedServer = (typeof SELF_HOSTED_SERVERS)[number];

export function isSelfHosted(name: string): name is SelfHostedServer {
  return (SELF_HOSTED_SERVERS as readonly string[]).includes(name);
}

/** How the README's provider table names each provider, and what it says besides the variables. */
const PROVIDER_DOCS: Record<ProviderName, { label: string; keyNote?: string; baseUrlNote?: string }> = {
  openai: { label: 'OpenAI' },
  anthropic: { label: 'Anthropic' },
  google: { label: 'Google Gemini (chat; Imagen, Gemini image and Veo media models)' },
  openrouter: { label: 'OpenRouter' },
  together: { label: 'Together' },
  groq: { label: 'Groq' },
  deepseek: { label: 'DeepSeek' },
  xai: { label: 'xAI' },
  fal: { label: 'fal (media models through its queue)' },
  replicate: { label: 'Replicate (media models through its predictions)' },
  elevenlabs: { label: 'ElevenLabs (speech, music, transcription)' },
  runway: { label: 'Runway (video tasks)' },
  minimax: { label: 'MiniMax (speech, music)' },
  assemblyai: { label: 'AssemblyAI (transcription)' },
  deepgram: { label: 'Deepgram (transcription)' },
  ollama: {
    label: 'Ollama (self-hosted; ids `ollama/<model>`)',
    keyNote: 'optional',
    baseUrlNote: 'none; e.g. `http://localhost:11434/v1`; setting it enables the provider',
  },
  'self-hosted': {
    label:
      'vLLM, llama.cpp server, LM Studio, any OpenAI-compatible server (self-hosted; ids `self-hosted/<model>`)',
    keyNote: "optional; vLLM's `--api-key`",
    baseUrlNote: 'none; ends at `/v1`, e.g. `http://localhost:8000/v1`',
  },
};

/** Each provider's key and base-URL override (every one optional). */
export const providerKeysEnvShape = Object.fromEntries(
  Object.values(PROVIDER_ENV).flatMap((p) => [
    [p.key, optionalString],
    [p.baseUrl, z.url().optional()],
  ]),
) as Record<string, typeof optionalString>;

/** The provider table: one row per provider, its key and its base URL (with the default). */
export const providerKeySettings: SettingsArea = {
  name: 'provider-keys',
  columns: ['Provider', 'Key', 'Base URL (default)'],
  shape: providerKeysEnvShape,
  rows: (Object.entries(PROVIDER_ENV) as Array<[ProviderName, (typeof PROVIDER_ENV)[ProviderName]]>).map(
    ([name, p]): SettingRow => {
      const doc = PROVIDER_DOCS[name];
      return {
        vars: [p.key, p.baseUrl],
        label: doc.label,
        default: `\`${p.key}\`${doc.keyNote ? ` (${doc.keyNote})` : ''}`,
        meaning: `\`${p.baseUrl}\` (${p.defaultBaseUrl ? `\`${p.defaultBaseUrl}\`` : doc.baseUrlNote})`,
      };
    },
  ),
};

export const upstreamEnvShape = {
  UPSTREAM_TIMEOUT_MS: int(100).default(120_000),
  UPSTREAM_RETRIES: int(0, 5).default(2),
  PROVIDER_MARGIN_PERCENT: z.string().default(''),
};

export const upstreamSettings: SettingsArea = {
  name: 'upstreams',
  shape: upstreamEnvShape,
  rows: [
    {
      vars: ['UPSTREAM_TIMEOUT_MS'],
      default: '`120000`',
      meaning: 'Time an upstream may take to answer (and between stream events).',
    },
    {
      vars: ['UPSTREAM_RETRIES'],
      default: '`2`',
      meaning:
        'Retries per upstream before the first byte (exponential backoff); then the fallback provider.',
    },
    {
      vars: ['PROVIDER_MARGIN_PERCENT'],
      default: '`0`',
      meaning: 'Margin on upstream prices: `20` for all, or `20,fal=35,openai=10` per provider.',
    },
  ],
};

export interface ProviderConfig {
  apiKey: string | undefined;
  baseUrl: string;
}

export interface ProvidersConfig {
  upstreamTimeoutMs: number;
  upstreamRetries: number;
  /** Margin added to upstream prices, in percent, per provider (`*` for the default). */
  providerMarginPercent: Record<string, number>;
  providers: Record<ProviderName, ProviderConfig>;
}

function parseMargins(raw: string, problems: string[]): Record<string, number> {
  const margins: Record<string, number> = { '*': 0 };
  for (const part of raw.split(',').map((p) => p.trim())) {
    if (!part) continue;
    const [name, value] = part.includes('=') ? part.split('=', 2) : ['*', part];
    const pct = Number(value);
    if (!name || !Number.isFinite(pct) || pct < 0 || pct > 1000) {
      problems.push(`PROVIDER_MARGIN_PERCENT: "${part}" is not <provider>=<percent 0..1000>`);
      continue;
    }
    margins[name.trim()] = pct;
  }
  return margins;
}

export function parseProviders(
  e: Values<typeof upstreamEnvShape> & Record<string, unknown>,
  problems: string[],
): ProvidersConfig {
  const values = e as Record<string, string | undefined>;
  const providers = Object.fromEntries(
    Object.entries(PROVIDER_ENV).map(([name, p]) => [
      name,
      { apiKey: values[p.key], baseUrl: (values[p.baseUrl] ?? p.defaultBaseUrl).replace(/\/+$/, '') },
    ]),
  ) as Record<ProviderName, ProviderConfig>;
  return {
    upstreamTimeoutMs: e.UPSTREAM_TIMEOUT_MS,
    upstreamRetries: e.UPSTREAM_RETRIES,
    providerMarginPercent: parseMargins(e.PROVIDER_MARGIN_PERCENT, problems),
    providers,
  };
}
