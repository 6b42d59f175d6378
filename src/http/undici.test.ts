// kasir's undici entry (its pools, agent and request API, loaded without undici's index) is undici's own: the same
// classes undici exports, and their request API works in a process that never loads undici's index.
import { execFile } from 'node:child_process';
import { createServer } from 'node:http';
import path from 'node:path';
import { promisify } from 'node:util';
import * as undici from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeServer, listen, sendJson } from '../../test/fakes/http.js';
import { buildIfStale } from '../../test/support/built.js';
import { Agent, Pool } from './undici.js';

const root = path.resolve(import.meta.dirname, '../..');

describe('undici, loaded from its own files', () => {
  const server = createServer((req, res) => sendJson(res, 200, { method: req.method, url: req.url }));
  let origin = '';
  beforeAll(async () => {
    origin = await listen(server);
  });
  afterAll(() => closeServer(server));

  it('exports the classes undici’s index exports', () => {
    expect(Pool).toBe(undici.Pool);
    expect(Agent).toBe(undici.Agent);
  });

  it('gives a pool and an agent the request API without undici’s index', async () => {
    // A process of its own: in this one, undici's index (imported above) has already added the API.
    buildIfStale();
    const script = `
      import { createRequire } from 'node:module';
      import { Agent, Pool } from './dist/http/undici.js';
      const origin = process.argv[1];
      const pool = new Pool(origin);
      const agent = new Agent();
      const a = await pool.request({ path: '/a?b=1', method: 'GET' });
      const b = await agent.request({ origin, path: '/c', method: 'POST', body: '{}' });
      const index = Object.keys(createRequire(import.meta.url).cache).some((f) => f.endsWith('/undici/index.js'));
      console.log(JSON.stringify([a.statusCode, await a.body.json(), await b.body.json(), index]));
      await Promise.all([pool.close(), agent.close()]);
    `;
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['--input-type=module', '-e', script, origin],
      { cwd: root },
    );
    expect(JSON.parse(stdout)).toEqual([
      200,
      { method: 'GET', url: '/a?b=1' },
      { method: 'POST', url: '/c' },
      false,
    ]);
  });
});
