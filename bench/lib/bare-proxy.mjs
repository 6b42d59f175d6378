// The baseline for paid routes: a bare pass-through proxy, raw Node http in front of an undici Pool (the floor).
import http from 'node:http';
import { Pool } from 'undici';

const upstream = new URL(process.env.UPSTREAM_URL);
const pool = new Pool(upstream.origin, { connections: 128, pipelining: 1 });
const prefix = upstream.pathname.replace(/\/$/, '');

const server = http.createServer((req, res) => {
  pool
    .stream(
      {
        path: prefix + req.url.replace(/^\/v1/, ''),
        method: req.method,
        headers: { 'content-type': req.headers['content-type'] ?? 'application/json' },
        body: req,
      },
      ({ statusCode, headers }) => {
        res.writeHead(statusCode, { 'content-type': headers['content-type'] ?? 'application/json' });
        res.flushHeaders();
        return res;
      },
    )
    .catch(() => {
      if (!res.headersSent) res.writeHead(502);
      res.end();
    });
});
server.listen(0, '127.0.0.1', () =>
  console.error(`bare proxy listening on http://127.0.0.1:${server.address().port}`),
);
