/**
 * The configuration's one entry point: reads every setting once (the environment, over the optional JSON file),
 * validates each area, and reports every bad setting at once — a value its schema refuses and a rule between
 * settings alike — in one ConfigError.
 */
import { availableParallelism } from 'node:os';
import { SETTINGS_AREAS } from './areas.js';
import { type ChatTimeouts, parseChatTimeouts } from './chat.js';
import { type RawEnv, readConfigFile } from './config-file.js';
import { type DashboardConfig, type dashboardEnvShape, parseDashboard } from './dashboard.js';
import { ConfigError } from './error.js';
import { type FaceConfig, parseFace } from './face.js';
import { type FetchConfig, parseFetch } from './fetch.js';
import { type LedgerConfig, type ledgerEnvShape, parseLedger } from './ledger.js';
import { type MediaConfig, parseMedia } from './media.js';
import { type ModelsConfig, parseModels } from './models.js';
import { type MppConfig, parseMpp } from './mpp.js';
import { type ProvidersConfig, parseProviders, type upstreamEnvShape } from './providers.js';
import { parseScreenshot, type ScreenshotConfig } from './screenshot.js';
import { parseServer, type ServerConfig, type serverEnvShape } from './server.js';
import type { Values } from './setting.js';
import { parseStorage, type StorageConfig, type storageEnvShape } from './storage.js';
import { parseTools, type ToolsConfig } from './tools.js';
import { parseVision, type VisionConfig } from './vision.js';
import { parseWorkers, type WorkersConfig } from './workers.js';
import { parseX402, type X402Config } from './x402.js';

export interface Config extends ServerConfig, StorageConfig, ProvidersConfig, LedgerConfig {
  /** The x402 wallet rails (see x402.ts); no chains = the rail is off. */
  x402: X402Config;
  /** The MPP rail (see mpp.ts); neither Tempo nor a card = the rail is off. */
  mpp: MppConfig;
  /** The paid data tools' upstreams (see tools.ts). */
  tools: ToolsConfig;
  /** The dashboard and rupiah top-ups (see dashboard.ts). */
  dashboard: DashboardConfig;
  /** The screenshot tool's browser (see screenshot.ts). */
  screenshot: ScreenshotConfig;
  /** The safe fetcher (see fetch.ts). */
  fetch: FetchConfig;
  /** Chat upstream timeouts per kind of wait (see chat.ts). */
  chatTimeouts: ChatTimeouts;
  /** Media models' polling and waiting (see media.ts). */
  mediaModels: MediaConfig;
  /** The vision and identity tools (see vision.ts). */
  vision: VisionConfig;
  /** The face tools (see face.ts). */
  face: FaceConfig;
  /** The worker threads of CPU-heavy work (see workers.ts). */
  workers: WorkersConfig;
  /** Self-hosted model prices and the model-list readings (see models.ts). */
  models: ModelsConfig;
}

/**
 * Each setting of every area through its schema. A refused value is a problem, and the reading goes on with the
 * setting's default so the rules between settings can still be checked and named in the same report.
 */
function validate(merged: RawEnv, problems: string[]): Record<string, unknown> {
  const values: Record<string, unknown> = {};
  for (const area of SETTINGS_AREAS) {
    for (const [name, schema] of Object.entries(area.shape)) {
      const parsed = schema.safeParse(merged[name]);
      if (parsed.success) {
        values[name] = parsed.data;
        continue;
      }
      for (const issue of parsed.error.issues)
        problems.push(`${[name, ...issue.path].join('.')}: ${issue.message}`);
      const fallback = schema.safeParse(undefined);
      values[name] = fallback.success ? fallback.data : undefined;
    }
  }
  return values;
}

/**
 * Reads the configuration once. Values in the environment win over the optional JSON file named by
 * `KASIR_CONFIG_FILE` (an object whose keys are the same variable names). Every bad setting is named in one
 * ConfigError.
 * @example const config = loadConfig(process.env)
 */
export function loadConfig(env: RawEnv): Config {
  const fileValues = readConfigFile(env.KASIR_CONFIG_FILE);
  const merged: RawEnv = { ...fileValues };
  for (const [k, v] of Object.entries(env)) if (v !== undefined) merged[k] = v;
  const problems: string[] = [];
  const e = validate(merged, problems);
  const storage = parseStorage(e as Values<typeof storageEnvShape>, problems);
  const config: Config = {
    ...parseServer(e as Values<typeof serverEnvShape>, problems),
    ...storage,
    ...parseProviders(e as Values<typeof upstreamEnvShape>, problems),
    ...parseLedger(e as Values<typeof ledgerEnvShape>, storage.database, problems),
    chatTimeouts: parseChatTimeouts(e, (e as Values<typeof upstreamEnvShape>).UPSTREAM_TIMEOUT_MS),
    x402: parseX402(e, problems),
    mpp: parseMpp(e, problems),
    tools: parseTools(e, problems),
    dashboard: parseDashboard(e as Values<typeof dashboardEnvShape>, problems),
    screenshot: parseScreenshot(e),
    fetch: parseFetch(e, problems),
    mediaModels: parseMedia(e),
    vision: parseVision(e),
    face: parseFace(e),
    workers: parseWorkers(e, availableParallelism()),
    models: parseModels(e, problems),
  };
  if (problems.length) throw new ConfigError(problems);
  return config;
}
