/** Every setting of kasir: one zod schema, read once from the environment (and an optional JSON file). */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { type ChatTimeouts, chatEnvShape, parseChatTimeouts } from './config-chat.js';
import { type DashboardConfig, dashboardEnvShape, parseDashboard } from './config-dashboard.js';
import { type FaceConfig, faceEnvShape, parseFace } from './config-face.js';
import { type FetchConfig, fetchEnvShape, parseFetch } from './config-fetch.js';
import { type MediaConfig, mediaEnvShape, parseMedia } from './config-media.js';
import { type ModelsConfig, modelsEnvShape, parseModels } from './config-models.js';
import { type MppConfig, mppEnvShape, parseMpp } from './config-mpp.js';
import { parseScreenshot, type ScreenshotConfig, screenshotEnvShape } from './config-screenshot.js';
import { parseTools, type ToolsConfig, toolsEnvShape } from './config-tools.js';
import { parseVision, type VisionConfig, visionEnvShape } from './config-vision.js';
import { parseX402, type X402Config, x402EnvShape } from './config-x402.js';
import type { CorsOrigins } from './http/cors.js';

const bool = z
  .enum(['true', 'false', '1', '0', 'yes', 'no', ''])
  .transform((v) => v === 'true' || v === '1' || v === 'yes');
const int = (min: number, max = Number.MAX_SAFE_INTEGER) => z.coerce.number().int().min(min).max(max);
const optionalUrl = z.url().optional();
const optionalString = z
  .string()
  .optional()
  .transform((v) => (v === '' ? undefined : v));

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

const providerShape = Object.fromEntries(
  Object.values(PROVIDER_ENV).flatMap((p) => [
    [p.key, optionalString],
    [p.baseUrl, optionalUrl],
  ]),
) as Record<string, typeof optionalString>;

/** The raw environment schema: names are the environment variables, documented in the README. */
const envSchema = z.object({
  HOST: z.string().min(1).default('127.0.0.1'),
  PORT: int(0, 65535).default(8402),
  DATA_DIR: z.string().min(1).default('./data'),
  PUBLIC_BASE_URL: optionalUrl,
  MEDIA_PUBLIC_BASE_URL: optionalUrl,
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  RATE_LIMIT_PER_MINUTE: int(0).default(120),
  TRUST_PROXY: bool.default(false),
  DATABASE_URL: optionalString,
  REDIS_URL: optionalString,
  MEDIA_MAX_BYTES: int(1).default(40 * 1024 * 1024),
  S3_BUCKET: optionalString,
  S3_ENDPOINT: optionalUrl,
  S3_REGION: z.string().default('us-east-1'),
  S3_ACCESS_KEY_ID: optionalString,
  S3_SECRET_ACCESS_KEY: optionalString,
  S3_FORCE_PATH_STYLE: bool.default(false),
  ADMIN_TOKEN: z
    .string()
    .optional()
    .transform((v) => (v === '' ? undefined : v))
    .refine((v) => v === undefined || v.length >= 16, 'must be at least 16 characters'),
  SHUTDOWN_TIMEOUT_MS: int(0).default(10_000),
  UPSTREAM_TIMEOUT_MS: int(100).default(120_000),
  UPSTREAM_RETRIES: int(0, 5).default(2),
  HOLD_TTL_SECONDS: int(30).default(900),
  PREPAID_LEASE_MICRO_USD: int(0).default(1_000_000),
  PREPAID_LEASE_IDLE_MS: int(50).default(2000),
  CHARGE_JOURNAL: z.enum(['auto', 'file', 'database']).default('auto'),
  SWEEP_INTERVAL_SECONDS: int(0).default(60),
  PROVIDER_MARGIN_PERCENT: z.string().default(''),
  CORS_ORIGINS: z.string().default('*'),
  ...providerShape,
  ...x402EnvShape,
  ...mppEnvShape,
  ...toolsEnvShape,
  ...dashboardEnvShape,
  ...screenshotEnvShape,
  ...fetchEnvShape,
  ...chatEnvShape,
  ...mediaEnvShape,
  ...visionEnvShape,
  ...faceEnvShape,
  ...modelsEnvShape,
});

export type RawEnv = Record<string, string | undefined>;

export interface ProviderConfig {
  apiKey: string | undefined;
  baseUrl: string;
}

export interface Config {
  host: string;
  port: number;
  dataDir: string;
  publicBaseUrl: string;
  /** MEDIA_PUBLIC_BASE_URL: the origin of the media links kasir hands out (a separate one keeps files off the dashboard's). */
  mediaPublicBaseUrl: string | undefined;
  logLevel: z.infer<typeof envSchema>['LOG_LEVEL'];
  rateLimitPerMinute: number;
  trustProxy: boolean;
  database: { kind: 'sqlite'; file: string } | { kind: 'postgres'; url: string };
  redisUrl: string | undefined;
  mediaMaxBytes: number;
  media:
    | { kind: 'disk'; dir: string }
    | {
        kind: 's3';
        bucket: string;
        endpoint: string | undefined;
        region: string;
        accessKeyId: string | undefined;
        secretAccessKey: string | undefined;
        forcePathStyle: boolean;
      };
  adminToken: string | undefined;
  shutdownTimeoutMs: number;
  upstreamTimeoutMs: number;
  upstreamRetries: number;
  holdTtlSeconds: number;
  /** The most one balance lease takes from an account; 0 = no leases, one database hold per call. */
  leaseMaxMicroUsd: number;
  /** An unused lease goes back to its account after this long. */
  leaseIdleMs: number;
  /** Where charges are journalled before their answers leave: a file in DATA_DIR, or rows in PostgreSQL. */
  chargeJournal: 'file' | 'database';
  sweepIntervalSeconds: number;
  /** Margin added to upstream prices, in percent, per provider (`*` for the default). */
  providerMarginPercent: Record<string, number>;
  providers: Record<ProviderName, ProviderConfig>;
  /** Origins allowed to call the public routes from a browser (`*` or a list); null = CORS off. */
  corsOrigins: CorsOrigins | null;
  /** The x402 wallet rails (see config-x402.ts); no chains = the rail is off. */
  x402: X402Config;
  /** The MPP rail (see config-mpp.ts); neither Tempo nor a card = the rail is off. */
  mpp: MppConfig;
  /** The paid data tools' upstreams (see config-tools.ts). */
  tools: ToolsConfig;
  /** The dashboard and rupiah top-ups (see config-dashboard.ts). */
  dashboard: DashboardConfig;
  /** The screenshot tool's browser (see config-screenshot.ts). */
  screenshot: ScreenshotConfig;
  /** The safe fetcher (see config-fetch.ts). */
  fetch: FetchConfig;
  /** Chat upstream timeouts per kind of wait (see config-chat.ts). */
  chatTimeouts: ChatTimeouts;
  /** Media models' polling and waiting (see config-media.ts). */
  mediaModels: MediaConfig;
  /** The vision and identity tools (see config-vision.ts). */
  vision: VisionConfig;
  /** The face tools (see config-face.ts). */
  face: FaceConfig;
  /** Self-hosted model prices and the model-list readings (see config-models.ts). */
  models: ModelsConfig;
}

/** Raised when settings are bad; its message names every bad setting, one per line. */
export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
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

function parseDatabase(url: string | undefined, dataDir: string, problems: string[]): Config['database'] {
  if (!url) return { kind: 'sqlite', file: path.join(dataDir, 'kasir.db') };
  if (/^postgres(ql)?:\/\//.test(url)) return { kind: 'postgres', url };
  if (url.startsWith('sqlite:')) return { kind: 'sqlite', file: url.slice('sqlite:'.length) || ':memory:' };
  problems.push('DATABASE_URL: must start with postgres://, postgresql:// or sqlite:');
  return { kind: 'sqlite', file: ':memory:' };
}

/**
 * Reads the configuration once. Values in the environment win over the optional JSON file named by
 * `KASIR_CONFIG_FILE` (an object whose keys are the same variable names).
 * @example const config = loadConfig(process.env)
 */
export function loadConfig(env: RawEnv): Config {
  const fileValues = readConfigFile(env.KASIR_CONFIG_FILE);
  const merged: RawEnv = { ...fileValues };
  for (const [k, v] of Object.entries(env)) if (v !== undefined) merged[k] = v;
  const parsed = envSchema.safeParse(merged);
  if (!parsed.success) {
    throw new ConfigError(parsed.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`));
  }
  const e = parsed.data;
  const problems: string[] = [];
  const database = parseDatabase(e.DATABASE_URL, e.DATA_DIR, problems);
  if (e.CHARGE_JOURNAL === 'database' && database.kind !== 'postgres')
    problems.push('CHARGE_JOURNAL: "database" needs a PostgreSQL DATABASE_URL (SQLite journals to a file)');
  const providerMarginPercent = parseMargins(e.PROVIDER_MARGIN_PERCENT, problems);
  const x402 = parseX402(e as Record<string, unknown>, problems);
  const mpp = parseMpp(e as Record<string, unknown>, problems);
  const tools = parseTools(e as Record<string, unknown>, problems);
  const dashboard = parseDashboard(e, problems);
  const fetch = parseFetch(e as Record<string, unknown>, problems);
  const corsOrigins = parseCorsOrigins(e.CORS_ORIGINS, problems);
  const models = parseModels(e as Record<string, unknown>, problems);
  if (problems.length) throw new ConfigError(problems);
  const publicHost = e.HOST === '0.0.0.0' || e.HOST === '::' ? 'localhost' : e.HOST;
  const values = e as unknown as Record<string, string | undefined>;
  const providers = Object.fromEntries(
    Object.entries(PROVIDER_ENV).map(([name, p]) => [
      name,
      { apiKey: values[p.key], baseUrl: (values[p.baseUrl] ?? p.defaultBaseUrl).replace(/\/+$/, '') },
    ]),
  ) as Record<ProviderName, ProviderConfig>;
  return {
    host: e.HOST,
    port: e.PORT,
    dataDir: e.DATA_DIR,
    publicBaseUrl: (
      e.PUBLIC_BASE_URL ?? `http://${publicHost.includes(':') ? `[${publicHost}]` : publicHost}:${e.PORT}`
    ).replace(/\/+$/, ''),
    mediaPublicBaseUrl: e.MEDIA_PUBLIC_BASE_URL?.replace(/\/+$/, ''),
    logLevel: e.LOG_LEVEL,
    rateLimitPerMinute: e.RATE_LIMIT_PER_MINUTE,
    trustProxy: e.TRUST_PROXY,
    database,
    redisUrl: e.REDIS_URL,
    mediaMaxBytes: e.MEDIA_MAX_BYTES,
    media: e.S3_BUCKET
      ? {
          kind: 's3',
          bucket: e.S3_BUCKET,
          endpoint: e.S3_ENDPOINT,
          region: e.S3_REGION,
          accessKeyId: e.S3_ACCESS_KEY_ID,
          secretAccessKey: e.S3_SECRET_ACCESS_KEY,
          forcePathStyle: e.S3_FORCE_PATH_STYLE,
        }
      : { kind: 'disk', dir: path.join(e.DATA_DIR, 'media') },
    adminToken: e.ADMIN_TOKEN,
    shutdownTimeoutMs: e.SHUTDOWN_TIMEOUT_MS,
    upstreamTimeoutMs: e.UPSTREAM_TIMEOUT_MS,
    chatTimeouts: parseChatTimeouts(e as Record<string, unknown>, e.UPSTREAM_TIMEOUT_MS),
    upstreamRetries: e.UPSTREAM_RETRIES,
    holdTtlSeconds: e.HOLD_TTL_SECONDS,
    leaseMaxMicroUsd: e.PREPAID_LEASE_MICRO_USD,
    leaseIdleMs: e.PREPAID_LEASE_IDLE_MS,
    chargeJournal:
      e.CHARGE_JOURNAL === 'auto' ? (database.kind === 'postgres' ? 'database' : 'file') : e.CHARGE_JOURNAL,
    sweepIntervalSeconds: e.SWEEP_INTERVAL_SECONDS,
    providerMarginPercent,
    providers,
    corsOrigins,
    x402,
    mpp,
    tools,
    dashboard,
    screenshot: parseScreenshot(e as Record<string, unknown>),
    fetch,
    mediaModels: parseMedia(e as Record<string, unknown>),
    vision: parseVision(e as Record<string, unknown>),
    face: parseFace(e as Record<string, unknown>),
    models,
  };
}

/** `*`, `none` (or empty: off), or comma-separated origins (`https://app.example.com`), each checked. */
function parseCorsOrigins(value: string, problems: string[]): CorsOrigins | null {
  const v = value.trim();
  if (v === '*') return '*';
  if (v === '' || v.toLowerCase() === 'none') return null;
  const origins = v
    .split(',')
    .map((o) => o.trim().replace(/\/+$/, ''))
    .filter(Boolean);
  for (const o of origins) {
    if (!URL.canParse(o) || new URL(o).origin !== o) {
      problems.push(`CORS_ORIGINS: "${o}" is not an origin (scheme://host[:port])`);
    }
  }
  return origins;
}

function readConfigFile(file: string | undefined): RawEnv {
  if (!file) return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new ConfigError([`KASIR_CONFIG_FILE: cannot read ${file}: ${(err as Error).message}`]);
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new ConfigError(['KASIR_CONFIG_FILE: must hold a JSON object of setting names to values']);
  }
  return Object.fromEntries(
    Object.entries(parsed as Record<string, unknown>).map(([k, v]) => [
      k,
      v === null ? undefined : String(v),
    ]),
  );
}
