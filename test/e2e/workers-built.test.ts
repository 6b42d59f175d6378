// The worker threads of the built service (dist/, as `npm start` runs it): a card tool and a face tool answer
// through the compiled worker entry, with the same PNG bytes and the same face values as the sources draw and find
// on the event loop.
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { drawCard } from '../../src/render/draw.js';
import { themeOf } from '../../src/render/themes.js';
import { createWorkerPool } from '../../src/workers/pool.js';
import { buildIfStale, startBuilt } from '../support/built.js';
import { bearer, type PaidKasir, startPaidKasir } from '../support/paid.js';

const root = path.resolve(import.meta.dirname, '../..');
const ADMIN = 'workers-built-admin-token-0123';
const PHOTO = readFileSync(path.join(root, 'test/fixtures/faces/woman-1.jpg'));

describe('the built service’s worker threads', () => {
  let child: ChildProcess | undefined;
  let url = '';
  let key = '';
  /** The same service from the sources, its work on the event loop. */
  let sources: PaidKasir | undefined;
  const dataDir = mkdtempSync(path.join(tmpdir(), 'kasir-workers-'));

  const post = async (route: string, body: unknown, auth: string) => {
    const res = await fetch(`${url}${route}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${auth}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };

  beforeAll(async () => {
    // The service as `npm start` runs it: the compiled code.
    buildIfStale();
    const started = await startBuilt({
      ...process.env,
      HOST: '127.0.0.1',
      PORT: '0',
      DATA_DIR: dataDir,
      ADMIN_TOKEN: ADMIN,
      LOG_LEVEL: 'warn',
      RATE_LIMIT_PER_MINUTE: '0',
      WORKER_THREADS: '1',
    });
    child = started.child;
    url = started.url;
    const account = await post('/v1/admin/accounts', { label: 'workers' }, ADMIN);
    const id = String(account.body.account_id);
    await post(`/v1/admin/accounts/${id}/credit`, { amount_micro_usd: 1_000_000, reason: 'test' }, ADMIN);
    key = String((await post(`/v1/admin/accounts/${id}/keys`, {}, ADMIN)).body.key);
  }, 240_000);
  afterAll(async () => {
    child?.kill('SIGTERM');
    await sources?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('draws a card with the same bytes as the sources on the event loop', async () => {
    const quote = 'Di mana bumi dipijak, di situ langit dijunjung.';
    const answer = await post('/v1/tools/quote-card', { quote, author: 'Pepatah' }, key);
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    const png = Buffer.from(
      await (await fetch(`${url}${new URL(String(answer.body.url)).pathname}`)).arrayBuffer(),
    );
    const theme = themeOf({}, 'light');
    const expected = await drawCard(createWorkerPool({ threads: 0, queueMax: 1, priority: 'low' }), {
      kind: 'quote',
      quote,
      author: 'Pepatah',
      theme,
    });
    expect(png.equals(expected.png)).toBe(true);
  }, 60_000);

  it('finds a face with the same values as the sources on the event loop', async () => {
    const answer = await post(
      '/v1/tools/face-embed',
      { image_base64: `data:image/jpeg;base64,${PHOTO.toString('base64')}` },
      key,
    );
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    const faces = answer.body.faces as Array<{ embedding: number[]; score: number }>;
    expect(faces).toHaveLength(1);
    sources = await startPaidKasir('sqlite', { WORKER_THREADS: '0' });
    const { key: own } = await sources.fundedKey(1_000_000);
    const res = await sources.app.request('/v1/tools/face-embed', {
      method: 'POST',
      body: JSON.stringify({ image_base64: `data:image/jpeg;base64,${PHOTO.toString('base64')}` }),
      headers: { 'content-type': 'application/json', ...bearer(own) },
    });
    expect(res.status).toBe(200);
    const expected = (await res.json()) as Record<string, unknown>;
    expect({ faces, image: answer.body.image }).toEqual({ faces: expected.faces, image: expected.image });
  }, 120_000);
});
