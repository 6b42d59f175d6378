/** Gives every request an id (the caller's `x-request-id` when it is sane) and echoes it on the response. */
import { randomUUID } from 'node:crypto';
import type { MiddlewareHandler } from 'hono';
import type { AppEnv } from './env.js';

const SANE_ID = /^[A-Za-z0-9._:-]{1,128}$/;

export function requestId(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const given = c.req.header('x-request-id');
    const id = given && SANE_ID.test(given) ? given : randomUUID();
    c.set('requestId', id);
    // Responses built through the context (c.json, c.body, errors) carry it; handlers that write to the
    // Node response or build their own Response set it themselves (see node-response.ts, sse.ts).
    c.header('x-request-id', id);
    return next();
  };
}
