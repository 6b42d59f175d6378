/**
 * What every request goes through, whichever way it is served: a request id, the rate limit, one access-log line
 * and metrics observation, and errors rendered in the one error shape. Mounted as Hono middlewares for the routes
 * Hono serves, and applied by `serveLane` to the routes the Node server answers itself (lanes.ts).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { OpenAPIHono } from '@hono/zod-openapi';
import type { CorsOrigins } from '../config/server.js';
import { accessLog, recordRequest } from './access-log.js';
import { incomingIp } from './client-ip.js';
import { corsMiddleware, setCorsHeaders } from './cors.js';
import type { AppEnv } from './env.js';
import { type Exchange, sendJson } from './exchange.js';
import { type LaneLine, laneAccessLine } from './lane-access-line.js';
import type { Logger } from './logger.js';
import type { Metrics } from './metrics.js';
import { nodeExchange } from './node-exchange.js';
import { errorAnswer, renderError } from './on-error.js';
import { type RateLimiter, rateLimit, setVerdictHeaders } from './rate-limit.js';
import { requestId, requestIdFor } from './request-id.js';

/** A route the Node server answers itself, ahead of Hono. */
export interface Lane {
  method: string;
  path: string;
  handle(x: Exchange): Promise<unknown>;
}

export class Edge {
  constructor(
    private readonly log: Logger,
    private readonly metrics: Metrics,
    /** Null when rate limiting is off. */
    private readonly limiter: RateLimiter | null,
    /** Null when CORS is off. */
    private readonly corsOrigins: CorsOrigins | null = null,
  ) {}

  /** Mounts the edge on a Hono app, ahead of its routes. */
  mount(app: OpenAPIHono<AppEnv>): void {
    app.use('*', requestId());
    app.use('*', accessLog(this.log, this.metrics));
    if (this.corsOrigins) app.use('*', corsMiddleware(this.corsOrigins));
    if (this.limiter) app.use('*', rateLimit(this.limiter));
    app.onError(renderError(this.log));
  }

  /** Each lane's access-log line (null: the logger writes it), made when the lane first logs. */
  private readonly lines = new Map<Lane, LaneLine | null>();

  private lineOf(lane: Lane): LaneLine | null {
    let line = this.lines.get(lane);
    if (line === undefined) {
      line = laneAccessLine(this.log, lane.method, lane.path);
      this.lines.set(lane, line);
    }
    return line;
  }

  /** Serves one request of `lane` on the Node server, answering errors in the one error shape. */
  async serveLane(
    lane: Lane,
    incoming: IncomingMessage,
    outgoing: ServerResponse,
    path: string,
  ): Promise<void> {
    const started = performance.now();
    const given = incoming.headers['x-request-id'];
    const reqId = requestIdFor(typeof given === 'string' ? given : undefined);
    // Logged once the response has closed: a stream's status and duration are known only then.
    const line = this.lineOf(lane);
    const x = nodeExchange(incoming, outgoing, path, reqId, () =>
      recordRequest(
        this.log,
        this.metrics,
        { reqId, method: lane.method, path, route: lane.path, status: outgoing.statusCode, started },
        line,
      ),
    );
    // Only for a caller that names its origin, as a browser does on every cross-origin request (and on a POST, which
    // a lane always is, a same-origin one too). Without it the answer carries no CORS headers, whose presence would
    // take every answer off Node's one-object writeHead and onto its slower header store. A lane's answer is a POST's,
    // which no cache keeps, so it needs no Vary on the origin either.
    const origin = incoming.headers.origin;
    if (this.corsOrigins && origin !== undefined) setCorsHeaders(outgoing, this.corsOrigins, origin);
    try {
      if (this.limiter) {
        const verdict = await this.limiter.hit(
          incomingIp(incoming, this.limiter.opts.trustProxy),
          x.header('authorization'),
        );
        setVerdictHeaders(outgoing, verdict);
        if (verdict.refusal) throw verdict.refusal;
      }
      await lane.handle(x);
    } catch (err) {
      const apiError = errorAnswer(err, this.log, x.requestId);
      if (outgoing.headersSent) outgoing.destroy();
      else
        sendJson(x, apiError.status, JSON.stringify(apiError.toBody()), {
          'content-type': apiError.contentType,
          ...apiError.headers,
        });
    }
  }
}
