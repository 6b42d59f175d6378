// streamedRequest: an upstream stream read frame group by frame group, refusals, aborts, back-pressure and
// connection reuse.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Pool } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CallAbort } from '../http/call-signal.js';
import { type StreamedFrames, streamedRequest } from './streamed.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const text = (frames: Buffer[]) => frames.map((f) => f.toString('utf8'));

/** Routes by path; records whether each response's connection closed before the handler finished. */
const routes: Record<string, (req: IncomingMessage, res: ServerResponse) => Promise<void> | void> = {
  async '/groups'(_req, res) {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write('data: 1\n\ndata: 2\n\ndata: 3');
    await sleep(20);
    res.write(' still 3');
    await sleep(20);
    res.end('\n\ndata: 4\n\ndata: [DONE]\n');
  },
  '/refused'(_req, res) {
    res.writeHead(429, { 'content-type': 'application/json' });
    res.end('{"error":{"message":"slow down"}}');
  },
  async '/endless'(_req, res) {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    while (!res.destroyed) {
      res.write('data: tick\n\n');
      await sleep(5);
    }
    endlessClosed = true;
  },
  async '/tail'(_req, res) {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write('data: [DONE]\n\n');
    // The tail follows once the test has read the first group (a pause alone can be outlasted by a busy machine,
    // and both then arrive as one group).
    await new Promise<void>((resolve) => {
      sendTail = resolve;
    });
    res.end(': bye\n\n');
  },
  async '/big'(_req, res) {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    const frame = `data: ${'x'.repeat(4000)}\n\n`;
    for (let i = 0; i < 300; i++) if (!res.write(frame)) await new Promise((r) => res.once('drain', r));
    res.end('data: [DONE]\n\n');
  },
};
let endlessClosed = false;
/** Lets /tail send what follows its `[DONE]`. */
let sendTail = () => {};

describe('streamedRequest', () => {
  let server: Server;
  let pool: Pool;
  beforeAll(async () => {
    server = createServer((req, res) => void routes[req.url ?? '']?.(req, res));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    pool = new Pool(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
  });
  afterAll(async () => {
    await pool.close();
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });

  const open = (path: string, signal = new CallAbort()) =>
    streamedRequest(pool, { method: 'GET', path, bodyTimeout: 2_000 }, signal, 1024);
  const framesOf = async (path: string): Promise<StreamedFrames> => {
    const answer = await open(path);
    if (!answer.ok) throw new Error(`HTTP ${answer.statusCode}`);
    return answer.frames;
  };

  it('yields the frames that arrived together as one group, and an unterminated last frame at the end', async () => {
    const frames = await framesOf('/groups');
    const groups: string[][] = [];
    for await (const group of frames.groups) groups.push(text(group));
    frames.release(true);
    expect(groups).toEqual([
      ['data: 1\n\n', 'data: 2\n\n'],
      ['data: 3 still 3\n\n', 'data: 4\n\n', 'data: [DONE]\n'],
    ]);
  });

  it('answers a refusal with its status and body instead of frames', async () => {
    const answer = await open('/refused');
    expect(answer.ok).toBe(false);
    if (answer.ok) return;
    expect(answer.statusCode).toBe(429);
    expect(answer.body.toString()).toContain('slow down');
  });

  it('cuts the connection when let go of before the end, which stops the upstream', async () => {
    endlessClosed = false;
    const frames = await framesOf('/endless');
    const first = await frames.groups[Symbol.asyncIterator]().next();
    expect(first.value && text(first.value)[0]).toBe('data: tick\n\n');
    frames.release(false);
    await expect.poll(() => endlessClosed).toBe(true);
  });

  it('rejects the pending read with the reason when the caller aborts mid-stream', async () => {
    const signal = new CallAbort();
    const answer = await open('/endless', signal);
    if (!answer.ok) throw new Error('refused');
    const reader = answer.frames.groups[Symbol.asyncIterator]();
    await reader.next();
    const reason = new Error('caller left');
    setTimeout(() => signal.abort(reason), 10);
    await expect(
      (async () => {
        for (;;) await reader.next();
      })(),
    ).rejects.toBe(reason);
  });

  it('rejects with the reason when aborted before the answer starts', async () => {
    const signal = new CallAbort();
    const reason = new Error('gone');
    signal.abort(reason);
    await expect(open('/groups', signal)).rejects.toBe(reason);
  });

  it('after a clean end, reads what follows in the background and keeps the connection for the next request', async () => {
    const frames = await framesOf('/tail');
    const reader = frames.groups[Symbol.asyncIterator]();
    expect(text((await reader.next()).value as Buffer[])).toEqual(['data: [DONE]\n\n']);
    sendTail();
    frames.release(true);
    const next = await framesOf('/groups');
    let count = 0;
    for await (const group of next.groups) count += group.length;
    expect(count).toBe(5);
  });

  it('holds the upstream back while the reader is slow, and loses nothing', async () => {
    const frames = await framesOf('/big');
    let count = 0;
    for await (const group of frames.groups) {
      count += group.length;
      await sleep(2);
    }
    expect(count).toBe(301);
  });
});
