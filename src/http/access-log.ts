/** One log line and one metrics observation per request: method, route, path, status, duration, request id. */
import { RESPONSE_ALREADY_SENT } from '@hono/node-server/utils/response';
import type { MiddlewareHandler } from 'hono';
import { routePath } from 'hono/route';
import type { AppEnv } from './env.js';
import type { LaneLine } from './lane-access-line.js';
import type { Logger } from './logger.js';
import type { Metrics } from './metrics.js';

export interface Served {
  reqId: string;
  method: string;
  path: string;
  /** The route pattern that matched, or 'unmatched'. */
  route: string;
  status: number;
  /** performance.now() when the request arrived. */
  started: number;
}

/** Counts and logs one request; `line` writes a lane's line (see lane-access-line.ts), else the logger does. */
export function recordRequest(log: Logger, metrics: Metrics, served: Served, line?: LaneLine | null): void {
  const seconds = (performance.now() - served.started) / 1000;
  metrics.observeRequest(served.method, served.route, served.status, seconds);
  const ms = Math.round(seconds * 1000 * 10) / 10;
  if (line) {
    line(served.reqId, served.status, ms);
    return;
  }
  // The path only: query strings can carry personal data (a NIK, say) and are never logged.
  log.info(
    {
      reqId: served.reqId,
      method: served.method,
      path: served.path,
      route: served.route,
      status: served.status,
      ms,
    },
    'request',
  );
}

export function accessLog(log: Logger, metrics: Metrics): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const started = performance.now();
    await next();
    const outgoing = c.env?.outgoing;
    // Identity, not a header lookup: reading c.res.headers would build a Headers object on every request.
    const streamedByHandler = outgoing !== undefined && c.res === RESPONSE_ALREADY_SENT;
    const finish = () => {
      const matched = routePath(c, -1);
      recordRequest(log, metrics, {
        reqId: c.get('requestId'),
        method: c.req.method,
        path: c.req.path,
        route: !matched || matched === '/*' || matched === '*' ? 'unmatched' : matched,
        // Handlers that stream to the Node response report their real status there.
        status: streamedByHandler ? outgoing.statusCode : c.res.status,
        started,
      });
    };
    if (streamedByHandler && !outgoing.writableFinished) outgoing.once('close', finish);
    else finish();
  };
}
