/**
 * What every dashboard response carries (a strict Content-Security-Policy: scripts, styles, images and fetches
 * from this origin only, no inline code, no framing) and what every dashboard form must pass: its request must
 * come from this origin (Origin / Sec-Fetch-Site, when the browser sends them) and carry the form's CSRF token.
 */
import type { MiddlewareHandler } from 'hono';
import type { AppEnv } from '../http/env.js';
import { ApiError } from '../http/errors.js';

export const CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "connect-src 'self'",
  "font-src 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join('; ');

export function securityHeaders(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    await next();
    c.header('content-security-policy', CSP);
    c.header('x-content-type-options', 'nosniff');
    c.header('x-frame-options', 'DENY');
    // Not no-referrer: under it a browser sends "Origin: null" with its own same-origin forms.
    c.header('referrer-policy', 'same-origin');
    if (!c.res.headers.has('cache-control')) c.header('cache-control', 'no-store');
  };
}

const SAFE = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Refuses a state-changing request from another origin: a browser names the page's origin in Origin and says
 * cross-site in Sec-Fetch-Site. Accepted origins: this server as configured (PUBLIC_BASE_URL) and as addressed.
 */
export function sameOrigin(publicBaseUrl: string): MiddlewareHandler<AppEnv> {
  const configured = new URL(publicBaseUrl).origin;
  return async (c, next) => {
    if (!SAFE.has(c.req.method)) {
      const site = c.req.header('sec-fetch-site');
      const origin = c.req.header('origin');
      const addressed = new URL(c.req.url).origin;
      if (site && site !== 'same-origin' && site !== 'none')
        throw new ApiError('forbidden', 'cross-site form refused');
      if (origin !== undefined && origin !== configured && origin !== addressed)
        throw new ApiError('forbidden', 'cross-origin form refused');
    }
    await next();
  };
}
