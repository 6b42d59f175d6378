/**
 * The dashboard's static files, read once at start-up: its own script and stylesheet, and Chart.js's UMD build from
 * node_modules (self-hosted, so the CSP can stay 'self'). Served with long caching under /dashboard/assets/.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { OpenAPIHono } from '@hono/zod-openapi';
import type { AppEnv } from '../http/env.js';
import { shippedFile } from '../shipped-files.js';

const here = (name: string) => shippedFile(`dashboard/assets/${name}`);
const chartDir = path.dirname(createRequire(import.meta.url).resolve('chart.js'));

const FILES: Record<string, { type: string; load: () => Buffer }> = {
  'dashboard.js': { type: 'text/javascript; charset=utf-8', load: () => readFileSync(here('dashboard.js')) },
  'dashboard.css': { type: 'text/css; charset=utf-8', load: () => readFileSync(here('dashboard.css')) },
  'chart.umd.min.js': {
    type: 'text/javascript; charset=utf-8',
    load: () => readFileSync(path.join(chartDir, 'chart.umd.min.js')),
  },
};

export function mountDashboardAssets(app: OpenAPIHono<AppEnv>): void {
  const loaded = new Map(Object.entries(FILES).map(([name, f]) => [name, { type: f.type, body: f.load() }]));
  app.get('/dashboard/assets/:name', (c) => {
    const file = loaded.get(c.req.param('name'));
    if (!file) return c.text('not found', 404);
    return c.body(new Uint8Array(file.body), 200, {
      'content-type': file.type,
      'cache-control': 'public, max-age=3600',
    });
  });
}
