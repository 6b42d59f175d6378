/** Gives every request an id (the caller's `x-request-id` when it is sane) and echoes it on the response. */
import { randomUUID } from 'node:crypto';
import type { MiddlewareHandler } from 'hono';
import type { AppEnv } from './env.js';

const SANE_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** The caller's id when it is sane, else a fresh one. */
export function requestIdFor(given: string | undefined): string {
  return given && SANE_ID.test(given) ? given : randomUUID();
}

export function requestId(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const id = requestIdFor(c.req.header('x-request-id'));
    c.set('requestId', id);
    // On Node it goes straight onto the Node response, which merges it into whatever is written: the context's
    // c.header() would build a WHATWG Headers object on every request, and every response would then pay to
    // convert it back. Under app.request() (tests) there is no Node response and the context carries it.
    const outgoing = c.env?.outgoing;
    if (outgoing) outgoing.setHeader('x-request-id', id);
    else c.header('x-request-id', id);
    return next();
  };
}
