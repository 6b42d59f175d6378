/**
 * Settings of the HTTP server itself: where it listens, the base of the links it hands out, logging, the rate limit,
 * the proxy in front, CORS, the admin token and the shutdown grace.
 */
import { z } from 'zod';
import { bool, int, type SettingsArea, type Values } from './setting.js';

const optionalUrl = z.url().optional();

export const serverEnvShape = {
  HOST: z.string().min(1).default('127.0.0.1'),
  PORT: int(0, 65535).default(8402),
  PUBLIC_BASE_URL: optionalUrl,
  MEDIA_PUBLIC_BASE_URL: optionalUrl,
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  RATE_LIMIT_PER_MINUTE: int(0).default(120),
  TRUST_PROXY: bool.default(false),
  ADMIN_TOKEN: z
    .string()
    .optional()
    .transform((v) => (v === '' ? undefined : v))
    .refine((v) => v === undefined || v.length >= 16, 'must be at least 16 characters'),
  SHUTDOWN_TIMEOUT_MS: int(0).default(10_000),
  CORS_ORIGINS: z.string().default('*'),
};

export const serverSettings: SettingsArea = {
  name: 'server',
  shape: serverEnvShape,
  rows: [
    { vars: ['HOST'], default: '`127.0.0.1`', meaning: 'Interface to listen on (`0.0.0.0` for all).' },
    {
      vars: ['PORT'],
      default: '`8402`',
      meaning:
        'Port to listen on (`0`: any free port, which the links kasir hands out then name). kasir listens before it has opened its stores, and answers `503` with `Retry-After: 1` until it is ready (when it prints its `listening on` line).',
    },
    {
      vars: ['PUBLIC_BASE_URL'],
      default: '`http://<HOST>:<PORT>`',
      meaning: 'Base of the links kasir hands out (media URLs, discovery documents).',
    },
    {
      vars: ['MEDIA_PUBLIC_BASE_URL'],
      default: '`PUBLIC_BASE_URL`',
      meaning:
        "**Recommended.** Base of the media links kasir hands out (`<base>/v1/media/<key>`): a second hostname that reaches the same kasir, so uploaded files are served from an origin other than the dashboard's (see *Media files are never pages of kasir*). Links under either base, over http or https, are read from the store as kasir's own.",
    },
    {
      vars: ['LOG_LEVEL'],
      default: '`info`',
      meaning: '`fatal`, `error`, `warn`, `info`, `debug`, `trace` or `silent`. One JSON line per request.',
    },
    {
      vars: ['RATE_LIMIT_PER_MINUTE'],
      default: '`120`',
      meaning:
        'Requests per minute per client IP; `0` turns the limit off. Accounts and keys can be given their own limit.',
    },
    {
      vars: ['TRUST_PROXY'],
      default: '`false`',
      meaning:
        'Read the client IP from the last `X-Forwarded-For` entry (set when one trusted proxy is in front).',
    },
    {
      vars: ['ADMIN_TOKEN'],
      default: '(admin API off)',
      meaning: 'Enables `/v1/admin/*`, guarded by `Authorization: Bearer <ADMIN_TOKEN>` (16+ characters).',
    },
    {
      vars: ['SHUTDOWN_TIMEOUT_MS'],
      default: '`10000`',
      meaning:
        'On SIGTERM/SIGINT: how long in-flight requests may finish before sockets are closed, and then how long the stores may take to write what they hold and close (past it the process exits with status 1, as if killed: what it journalled is replayed).',
    },
    {
      vars: ['CORS_ORIGINS'],
      default: '`*`',
      meaning:
        "Origins allowed to call the public routes from a browser: `*`, comma-separated origins (`https://app.example.com`), or `none`. Browser agents need it to read the 402's payment headers; it is never applied to `/dashboard`, `/v1/admin` or `/metrics`, and never allows credentials (keys travel in `Authorization`). `POST /v1/chat/completions` (answered by the Node server itself, see *Architecture*) sends them only to a request with an `Origin` header, as every browser sends on a POST.",
    },
  ],
};

export interface ServerConfig {
  host: string;
  port: number;
  publicBaseUrl: string;
  /** MEDIA_PUBLIC_BASE_URL: the origin of the media links kasir hands out (a separate one keeps files off the dashboard's). */
  mediaPublicBaseUrl: string | undefined;
  logLevel: z.infer<typeof serverEnvShape.LOG_LEVEL>;
  rateLimitPerMinute: number;
  trustProxy: boolean;
  adminToken: string | undefined;
  shutdownTimeoutMs: number;
  /** Origins allowed to call the public routes from a browser (`*` or a list); null = CORS off. */
  corsOrigins: CorsOrigins | null;
}

/** `*`, or the exact origins allowed (CORS_ORIGINS; http/cors.ts applies them). */
export type CorsOrigins = '*' | string[];

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

/** The base of kasir's links when PUBLIC_BASE_URL is not set: the address it listens on. */
function listeningBaseUrl(host: string, port: number): string {
  const publicHost = host === '0.0.0.0' || host === '::' ? 'localhost' : host;
  return `http://${publicHost.includes(':') ? `[${publicHost}]` : publicHost}:${port}`;
}

/**
 * `server` once it listens on `port`: with PORT=0 (any free port) and no PUBLIC_BASE_URL, its links name the port the
 * system gave it, not port 0.
 */
export function onBoundPort<C extends ServerConfig>(server: C, port: number): C {
  if (server.port !== 0 || server.publicBaseUrl !== listeningBaseUrl(server.host, 0)) return server;
  return { ...server, port, publicBaseUrl: listeningBaseUrl(server.host, port) };
}

export function parseServer(e: Values<typeof serverEnvShape>, problems: string[]): ServerConfig {
  return {
    host: e.HOST,
    port: e.PORT,
    publicBaseUrl: (e.PUBLIC_BASE_URL ?? listeningBaseUrl(e.HOST, e.PORT)).replace(/\/+$/, ''),
    mediaPublicBaseUrl: e.MEDIA_PUBLIC_BASE_URL?.replace(/\/+$/, ''),
    logLevel: e.LOG_LEVEL,
    rateLimitPerMinute: e.RATE_LIMIT_PER_MINUTE,
    trustProxy: e.TRUST_PROXY,
    adminToken: e.ADMIN_TOKEN,
    shutdownTimeoutMs: e.SHUTDOWN_TIMEOUT_MS,
    corsOrigins: parseCorsOrigins(e.CORS_ORIGINS, problems),
  };
}
