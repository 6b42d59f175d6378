// The built service started with PORT=0 (any free port) and no PUBLIC_BASE_URL: the links it hands out name the port
// it listens on, so they reach it.
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type BuiltKasir, buildIfStale, builtEnv, startBuilt } from '../support/built.js';

describe('the built service on a free port', () => {
  let dataDir: string;
  let child: ChildProcess | undefined;
  let kasir: BuiltKasir;
  beforeAll(async () => {
    buildIfStale();
    dataDir = mkdtempSync(path.join(tmpdir(), 'kasir-free-port-'));
    kasir = await startBuilt(
      builtEnv(dataDir, {
        LOG_LEVEL: 'warn',
        // A chat provider that is never called: an unpaid call is answered 402 before any upstream call.
        OPENAI_API_KEY: 'sk-test',
        OPENAI_BASE_URL: 'http://127.0.0.1:9/v1',
      }),
    );
    child = kasir.child;
  }, 120_000);
  afterAll(() => {
    child?.kill('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("names its own port in a 402's links, and they are routable", async () => {
    const port = new URL(kasir.url).port;
    expect(Number(port)).toBeGreaterThan(0);
    const res = await fetch(`${kasir.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'openai/gpt-4.1-mini', messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(res.status).toBe(402);
    const challenge = res.headers.get('www-authenticate') ?? '';
    const links = [...challenge.matchAll(/(?:docs|keys)="([^"]+)"/g)].map((m) => m[1] ?? '');
    expect(links).toEqual([`http://127.0.0.1:${port}/skill.md`, `http://127.0.0.1:${port}/dashboard`]);
    for (const link of links) expect((await fetch(link)).status).toBe(200);
  });
});
