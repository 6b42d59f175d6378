/** The caller's IP: the socket address, or with TRUST_PROXY the address the one trusted proxy saw. */
import type { IncomingMessage } from 'node:http';
import type { Context } from 'hono';
import type { AppEnv } from './env.js';

export function clientIpOf(
  forwardedFor: string | undefined,
  socketAddress: string | undefined,
  trustProxy: boolean,
): string {
  if (trustProxy) {
    // The proxy appends the address it saw; anything left of it was written by the client and can be forged.
    const last = forwardedFor?.split(',').at(-1)?.trim();
    if (last) return last;
  }
  return socketAddress ?? 'unknown';
}

export function clientIp(c: Context<AppEnv>, trustProxy: boolean): string {
  return clientIpOf(c.req.header('x-forwarded-for'), c.env?.incoming?.socket?.remoteAddress, trustProxy);
}

export function incomingIp(incoming: IncomingMessage, trustProxy: boolean): string {
  const forwarded = incoming.headers['x-forwarded-for'];
  return clientIpOf(
    Array.isArray(forwarded) ? forwarded.join(',') : forwarded,
    incoming.socket?.remoteAddress,
    trustProxy,
  );
}
