/**
 * Lanes: the routes the Node server answers itself, ahead of Hono. A paid call is a short request whose own work
 * (validation, billing, one upstream call) costs little, so the framework's per-request machinery (its request
 * and context objects, middleware chain and router) is a large share of its cost. A lane runs the same handler
 * and the same edge (edge.ts) without that machinery; every lane is also an ordinary Hono route, which is what
 * serves it under `app.request()` and anywhere Hono is given the request.
 */
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { OpenAPIHono } from '@hono/zod-openapi';
import type { Edge, Lane } from './edge.js';
import type { AppEnv } from './env.js';
import { type Exchange, exchangeOf } from './exchange.js';

type AppOptions = ConstructorParameters<typeof OpenAPIHono<AppEnv>>[0];

/** A Hono app that also keeps its lanes and its edge, for the server to answer them directly. */
export class LaneApp extends OpenAPIHono<AppEnv> {
  /** By path; one method per path. */
  readonly lanes = new Map<string, Lane>();

  constructor(
    readonly edge: Edge,
    options?: AppOptions,
  ) {
    super(options);
    edge.mount(this);
  }

  /** Serves POST `path` with `handle`, as a lane and as a Hono route. */
  postLane(path: string, handle: (x: Exchange) => Promise<Response>): void {
    this.lanes.set(path, { method: 'POST', path, handle });
    this.post(path, (c) => handle(exchangeOf(c)));
  }

  /** The Node request listener: lanes answered here, every other request handed to `fallback` (Hono's). */
  listener(fallback: RequestListener): RequestListener {
    if (this.lanes.size === 0) return fallback;
    return (incoming: IncomingMessage, outgoing: ServerResponse) => {
      const url = incoming.url ?? '/';
      const q = url.indexOf('?');
      const path = q === -1 ? url : url.slice(0, q);
      const lane = this.lanes.get(path);
      if (lane && lane.method === incoming.method) {
        this.edge.serveLane(lane, incoming, outgoing, path).catch(() => outgoing.destroy());
        return;
      }
      return fallback(incoming, outgoing);
    };
  }
}
