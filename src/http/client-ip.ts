/** The caller's IP: the socket address, or with TRUST_PROXY the address the one trusted proxy saw. */
import type { Context } from 'hono';
import type { AppEnv } from './env.js';

export function clientIp(c: Context<AppEnv>, trustProxy: boolean): string {
  if (trustProxy) {
    // The proxy appends the address it saw; anything left of it was written by the client and can be forged.
    const forwarded = c.req.header('x-forwarded-for');
    const last = forwarded?.split(',').at(-1)?.trim();
    if (last) return last;
  }
  return c.env?.incoming?.socket?.remoteAddress ?? 'unknown';
}
