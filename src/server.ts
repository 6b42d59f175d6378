/** Serves an app over HTTP and stops it gracefully: stop accepting, let in-flight requests finish, then close. */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { getRequestListener } from '@hono/node-server';
import type { Hono } from 'hono';
import { LaneApp } from './http/lanes.js';

export interface RunningServer {
  url: string;
  /** Stops accepting, waits for in-flight requests up to `timeoutMs`, then closes what is left. */
  stop(timeoutMs: number): Promise<void>;
}

/** Serves `app`: through Hono, except the lanes of a LaneApp, which the server answers itself. */
// biome-ignore lint/suspicious/noExplicitAny: any Hono app, whatever its environment type
export function startServer(app: Hono<any>, host: string, port: number): Promise<RunningServer> {
  const viaHono = getRequestListener(app.fetch, { hostname: host });
  const server = createServer(app instanceof LaneApp ? app.listener(viaHono) : viaHono);
  return new Promise((resolve, reject) => {
    server.listen(port, host, () => {
      const info = server.address() as AddressInfo;
      const h = info.family === 'IPv6' ? `[${info.address}]` : info.address;
      resolve({
        url: `http://${h}:${info.port}`,
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
