// CallAbort (a call's cancellation): its listeners and reason, and as an undici request signal cutting a
// response.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Pool } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { CallAbort } from './call-signal.js';

describe('CallAbort', () => {
  it('runs each listener once, in order, with the reason set, and only on the first abort', () => {
    const call = new CallAbort();
    const seen: string[] = [];
    call.addEventListener('abort', () => seen.push(`a:${String(call.reason)}`));
    call.addEventListener('abort', () => seen.push('b'));
    call.abort('gone');
    call.abort('again');
    expect(seen).toEqual(['a:gone', 'b']);
    expect(call.aborted).toBe(true);
    expect(call.reason).toBe('gone');
  });

  it('drops a removed listener and ignores listeners added after the abort', () => {
    const call = new CallAbort();
    const seen: string[] = [];
    const removed = () => seen.push('removed');
    call.addEventListener('abort', removed);
    call.addEventListener('abort', () => seen.push('kept'));
    call.removeEventListener('abort', removed);
    call.removeEventListener('abort', () => {});
    call.abort();
    call.addEventListener('abort', () => seen.push('late'));
    expect(seen).toEqual(['kept']);
  });

  it('aborts with an AbortError by default, as AbortController does', () => {
    const call = new CallAbort();
    call.abort();
    expect(call.reason).toBeInstanceOf(Error);
    expect((call.reason as Error).name).toBe('AbortError');
  });

  describe('as an undici request signal', () => {
    let server: Server | undefined;
    let pool: Pool | undefined;
    afterEach(async () => {
      await pool?.close();
      server?.closeAllConnections();
      await new Promise((r) => server?.close(r));
    });

    it('cuts a streamed response mid-body: the upstream sees its connection close', async () => {
      let upstreamClosed!: () => void;
      const closed = new Promise<void>((resolve) => {
        upstreamClosed = resolve;
      });
      const upstream = createServer((_req, res) => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write('data: first\n\n');
        res.on('close', upstreamClosed);
      });
      server = upstream;
      await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', r));
      const { port } = upstream.address() as AddressInfo;
      pool = new Pool(`http://127.0.0.1:${port}`);
      const call = new CallAbort();
      const res = await pool.request({ path: '/', method: 'GET', signal: call as unknown as AbortSignal });
      const chunks = res.body[Symbol.asyncIterator]();
      expect(String((await chunks.next()).value)).toBe('data: first\n\n');
      const reason = new Error('caller left');
      call.abort(reason);
      await expect(chunks.next()).rejects.toBe(reason);
      await closed;
    });
  });
});
