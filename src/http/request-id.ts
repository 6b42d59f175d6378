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
    c.header('x-request-id', id);
    await next();
    // Handlers that write to the Node response themselves set it there; this covers every other response.
    if (!c.res.headers.has('x-request-id')) c.res.headers.set('x-request-id', id);
  };
}
