/**
 * CORS on the public routes (CORS_ORIGINS, default `*`), so agents running in a browser can call the API and read
 * its payment headers. Never on the dashboard, the admin API or /metrics: those are for the operator and for people
 * signed in with a cookie. No credentials are ever allowed (keys travel in the Authorization header).
 */
import type { ServerResponse } from 'node:http';
import type { Context, MiddlewareHandler } from 'hono';
import { cors } from 'hono/cors';
import type { CorsOrigins } from '../config/server.js';
import type { AppEnv } from './env.js';

const PRIVATE = ['/dashboard', '/v1/admin', '/metrics'];

/** True on a path CORS applies to: every route but the operator's and the signed-in person's. */
export const corsApplies = (path: string): boolean =>
  !PRIVATE.some((p) => path === p || path.startsWith(`${p}/`));

const ALLOW_HEADERS = [
  'authorization',
  'content-type',
  'idempotency-key',
  // A browser MCP client on /mcp (Streamable HTTP) names its protocol version after initialising.
  'mcp-protocol-version',
  'payment-signature',
  'prefer',
  'x-max-price',
  'x-request-id',
];

/** What a browser caller may read of an answer: the payment challenge, receipt and charge headers. */
const EXPOSE_HEADERS = [
  'www-authenticate',
  'payment-required',
  'payment-response',
  'payment-receipt',
  'x-service-charged-micro-usd',
  'x-service-balance-micro-usd',
  'idempotent-replayed',
  'x-service-idempotent-replay',
  'x-payment-refund',
  'x-payment-refund-owed-micro-usd',
  'retry-after',
  'location',
  'x-request-id',
];

/** The middleware (hono/cors, preflights included) for the routes Hono serves. */
export function corsMiddleware(origins: CorsOrigins): MiddlewareHandler {
  const handler = cors({
    origin: origins,
    allowMethods: ['GET', 'HEAD', 'POST', 'OPTIONS'],
    allowHeaders: ALLOW_HEADERS,
    exposeHeaders: EXPOSE_HEADERS,
    maxAge: 600,
  });
  return (c: Context<AppEnv>, next) => {
    if (!corsApplies(c.req.path)) return next();
    // On the Node server the headers go on the Node response itself: a route that writes its answer straight to
    // it (node-response.ts) must not have its Fetch response rebuilt after the fact. Preflights are hono/cors's.
    const outgoing = c.env?.outgoing;
    if (outgoing && c.req.method !== 'OPTIONS') {
      setCorsHeaders(outgoing, origins, c.req.header('origin'));
      return next();
    }
    return handler(c, next);
  };
}

const EXPOSED = EXPOSE_HEADERS.join(', ');

/** The same headers on an answer the Node server sends itself (a lane, always a public POST route). */
export function setCorsHeaders(
  outgoing: ServerResponse,
  origins: CorsOrigins,
  origin: string | undefined,
): void {
  if (origins === '*') outgoing.setHeader('access-control-allow-origin', '*');
  else {
    outgoing.setHeader('vary', 'origin');
    if (!origin || !origins.includes(origin)) return;
    outgoing.setHeader('access-control-allow-origin', origin);
  }
  outgoing.setHeader('access-control-expose-headers', EXPOSED);
}
