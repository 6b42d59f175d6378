/**
 * The screenshot browser's only way out: a forward proxy on 127.0.0.1 that Chromium sends every request through
 * (`--proxy-server`, loopback included), which applies kasir's address rule (checkDestination) to each destination
 * — the page, every sub-resource, every redirect hop, WebSockets — and connects to the very address it checked, so
 * a name cannot be re-resolved to a private address by the browser between the check and the connection.
 *
 * Written by hand: the proxy libraries on npm filter by host name at best; none resolves once, checks the address
 * by kasir's rule and pins the connection to it. It speaks only what Chromium sends a proxy: CONNECT (https, wss)
 * and absolute-URI requests (http, ws).
 */
import { createServer, request as httpRequest, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { connect } from 'node:net';
import { type AddressPolicy, checkDestination } from '../fetch/address-rule.js';

export interface GuardProxy {
  /** `http://127.0.0.1:<port>` */
  url: string;
  /** Destinations refused so far (`host:port — reason`), newest last; trimmed to the last 100. */
  readonly refused: string[];
  close(): Promise<void>;
}

function remember(list: string[], entry: string): void {
  list.push(entry);
  if (list.length > 100) list.splice(0, list.length - 100);
}

export async function startGuardProxy(policy: AddressPolicy): Promise<GuardProxy> {
  const refused: string[] = [];
  const sockets = new Set<Socket>();
  const server: Server = createServer();
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });

  // https and wss: a tunnel to host:port, opened only to the checked address.
  server.on('connect', async (req: IncomingMessage, client: Socket, head: Buffer) => {
    client.on('error', () => {});
    const m = /^(\[[^\]]+\]|[^:]+):(\d+)$/.exec(req.url ?? '');
    if (!m?.[1]) {
      client.end('HTTP/1.1 400 Bad Request\r\n\r\n');
      return;
    }
    const verdict = await checkDestination(m[1], Number(m[2]), policy);
    if (!verdict.allowed) {
      remember(refused, `${req.url} — ${verdict.reason}`);
      client.end('HTTP/1.1 403 Forbidden\r\n\r\n');
      return;
    }
    const upstream = connect({ host: verdict.address.address, port: Number(m[2]) });
    upstream.on('error', () => client.destroy());
    upstream.on('connect', () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    client.on('close', () => upstream.destroy());
  });

  // http (and ws upgrades over http): the request forwarded to the checked address.
  const forward = async (
    req: IncomingMessage,
    reply: (res: IncomingMessage | null, status?: number) => void,
  ) => {
    let target: URL;
    try {
      target = new URL(req.url ?? '');
    } catch {
      reply(null, 400);
      return;
    }
    if (target.protocol !== 'http:' && target.protocol !== 'ws:') {
      reply(null, 400);
      return;
    }
    const port = Number(target.port || 80);
    const verdict = await checkDestination(target.hostname, port, policy);
    if (!verdict.allowed) {
      remember(refused, `${target.host} — ${verdict.reason}`);
      reply(null, 403);
      return;
    }
    const headers = { ...req.headers };
    delete headers['proxy-connection'];
    delete headers['proxy-authorization'];
    const out = httpRequest({
      host: verdict.address.address,
      port,
      method: req.method,
      path: `${target.pathname}${target.search}`,
      headers,
      setHost: false,
    });
    out.on('response', (res) => reply(res));
    out.on('error', () => reply(null, 502));
    req.pipe(out);
  };

  server.on('request', (req, res) => {
    void forward(req, (upstream, status) => {
      if (!upstream) {
        res.writeHead(status ?? 502).end();
        return;
      }
      res.writeHead(upstream.statusCode ?? 502, upstream.headers);
      upstream.pipe(res);
    });
  });
  server.on('upgrade', (req: IncomingMessage, client: Socket) => {
    // Plain ws:// through a proxy: refused (pages get wss:// through CONNECT, which is checked like https).
    client.on('error', () => {});
    remember(refused, `${req.url} — ws:// upgrades through the proxy are not forwarded`);
    client.end('HTTP/1.1 403 Forbidden\r\n\r\n');
  });

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    refused,
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
