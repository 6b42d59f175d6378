// The baseline for free routes: a bare Hono hello-world on @hono/node-server.
import { serve } from '@hono/node-server';
import { Hono } from 'hono';

const app = new Hono();
app.get('/hello', (c) => c.json({ hello: 'world' }));
serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 }, (info) => {
  console.error(`bare hono listening on http://127.0.0.1:${info.port}`);
});
