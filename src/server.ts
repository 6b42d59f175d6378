/**
 * Listens, serves an app over HTTP once it is ready, and stops it gracefully: stop accepting, let in-flight requests
 * finish, then close.
 */
import { createServer, type RequestListener } from 'node:http';
import type { AddressInfo } from 'node:net';
import { getRequestListener } from '@hono/node-server';
import type { Hono } from 'hono';
import { ApiError } from './http/errors.js';
import { LaneApp } from './http/lanes.js';

export interface RunningServer {
  url: string;
  /** Stops accepting, waits for in-flight requests up to `timeoutMs`, then closes what is left. */
  stop(timeoutMs: number): Promise<void>;
}

/** A server listening before its app is ready: it answers 503 until `serve` hands it the app. */
export interface BoundServer extends RunningServer {
  /** The port it listens on (the one the system chose, when asked for port 0). */
  port: number;
  // biome-ignore lint/suspicious/noExplicitAny: any Hono app, whatever its environment type
  serve(app: Hono<any>): void;
}

/** What a request gets while the instance is still starting: a 503 a client retries after a second. */
const starting: RequestListener = (_req, res) => {
  const err = new ApiError('unavailable', 'kasir is starting; retry in a moment', undefined, {
    'retry-after': '1',
  });
  res.writeHead(err.status, { 'content-type': err.contentType, ...err.headers, connection: 'close' });
  res.end(JSON.stringify(err.toBody()));
};

/**
 * Listens on `host`:`port` now, and serves an app once given one (see BoundServer). kasir binds before it wires its
 * stores, so that with PORT=0 the links it hands out name the port it really listens on.
 */
export function bindServer(host: string, port: number): Promise<BoundServer> {
  const server = createServer(starting);
  return new Promise((resolve, reject) => {
    server.listen(port, host, () => {
      const info = server.address() as AddressInfo;
      const h = info.family === 'IPv6' ? `[${info.address}]` : info.address;
      resolve({
        url: `http://${h}:${info.port}`,
        port: info.port,
        serve(app) {
          const viaHono = getRequestListener(app.fetch, { hostname: host });
          // The app's listener replaces the starting one outright: no indirection on every request.
          server.removeListener('request', starting);
          server.on('request', app instanceof LaneApp ? app.listener(viaHono) : viaHono);
        },
        stop: (timeoutMs) =>
          new Promise<void>((done) => {
            const timer = setTimeout(() => server.closeAllConnections(), timeoutMs);
            // Keep-alive sockets go idle as their last request finishes; close them as they do, not at their timeout.
            const idle = setInterval(() => server.closeIdleConnections(), 50);
            server.close(() => {
              clearTimeout(timer);
              clearInterval(idle);
              done();
            });
            server.closeIdleConnections();
          }),
      });
    });
    server.once('error', reject);
  });
}

/** Serves `app`: through Hono, except the lanes of a LaneApp, which the server answers itself. */
// biome-ignore lint/suspicious/noExplicitAny: any Hono app, whatever its environment type
export async function startServer(app: Hono<any>, host: string, port: number): Promise<RunningServer> {
  const bound = await bindServer(host, port);
  bound.serve(app);
  return bound;
}
