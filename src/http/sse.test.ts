// The SSE sinks: frames out in order with the end, a caller leaving told once (and only before the end), and the
// shape the garbage collector needs (no per-call accessor, nothing of the call kept once the stream is over).
import { createServer, type Server } from 'node:http';
import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { closeServer, listen } from '../../test/fakes/http.js';
import { collectGarbage } from '../../test/support/gc.js';
import { nodeExchange } from './node-exchange.js';
import { nodeSse, type SseSink, webSse } from './sse.js';

const frame = (text: string) => Buffer.from(`data: ${text}\n\n`);

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map(closeServer));
});

/** A Node server whose every request is answered by `handle` with a fresh sink, opened by its exchange. */
async function serveSse(handle: (sink: SseSink) => void): Promise<string> {
  // Through the exchange the server uses, so its hang-up wiring is what tells the sink.
  const server = createServer((incoming, outgoing) => {
    handle(nodeExchange(incoming, outgoing, '/', 'req_1').openSse({ 'x-extra': 'yes' }));
  });
  servers.push(server);
  return listen(server);
}

describe('nodeSse (through the Node exchange)', () => {
  it('sends the SSE headers, the frames in order and the last bytes with the end', async () => {
    const url = await serveSse(async (sink) => {
      expect(await sink.write(frame('1'))).toBe(true);
      expect(await sink.write(frame('2'))).toBe(true);
      sink.end(frame('[DONE]'));
    });
    const res = await request(url);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/event-stream; charset=utf-8');
    expect(res.headers['x-request-id']).toBe('req_1');
    expect(res.headers['x-extra']).toBe('yes');
    expect(await res.body.text()).toBe('data: 1\n\ndata: 2\n\ndata: [DONE]\n\n');
  });

  it('tells a caller leaving mid-stream once, and then refuses writes', async () => {
    let told = 0;
    let sink: SseSink | undefined;
    const gone = new Promise<void>((resolve) => {
      void serveSse((s) => {
        sink = s;
        s.onDisconnect(() => {
          told++;
          resolve();
        });
        void s.write(frame('1'));
      }).then(async (url) => {
        const res = await request(url);
        for await (const _ of res.body) break;
        res.body.destroy();
      });
    });
    await gone;
    expect(told).toBe(1);
    expect(sink?.closed).toBe(true);
    expect(await sink?.write(frame('2'))).toBe(false);
  });

  it('does not tell a caller leaving after the end', async () => {
    let told = 0;
    const url = await serveSse((sink) => {
      sink.onDisconnect(() => told++);
      sink.end(frame('[DONE]'));
    });
    const res = await request(url);
    expect(await res.body.text()).toBe('data: [DONE]\n\n');
    expect(told).toBe(0);
  });
});

describe('webSse', () => {
  it('streams the frames and the end into the Response body', async () => {
    const sink = webSse({}, 'req_2');
    expect(sink.response.headers.get('x-request-id')).toBe('req_2');
    await sink.write(frame('1'));
    sink.end(frame('[DONE]'));
    expect(await sink.response.text()).toBe('data: 1\n\ndata: [DONE]\n\n');
    expect(await sink.write(frame('late'))).toBe(false);
  });

  it('tells a reader cancelling once', async () => {
    const sink = webSse({}, 'req_3');
    let told = 0;
    sink.onDisconnect(() => told++);
    await sink.response.body?.cancel();
    expect(told).toBe(1);
    expect(sink.closed).toBe(true);
  });
});

describe('the sinks’ shape', () => {
  it('has no accessor of its own: per-call getters gave each call a hidden class that kept it from the scavenger', () => {
    const fake = { writeHead: () => undefined } as unknown as Parameters<typeof nodeSse>[0];
    for (const sink of [nodeSse(fake, {}, 'r', () => undefined), webSse({}, 'r')]) {
      for (const key of Reflect.ownKeys(sink)) {
        const own = Object.getOwnPropertyDescriptor(sink, key);
        expect(own?.get, String(key)).toBeUndefined();
        expect(own?.set, String(key)).toBeUndefined();
      }
      // The accessor the interface names is the class's, shared by every sink.
      expect(Object.getOwnPropertyDescriptor(sink, 'closed')?.value).toBe(false);
    }
  });
});

describe('a finished stream', () => {
  // Wherever V8 put a sink (it may allocate them in the old generation), a finished one must not keep its call
  // alive: each scavenge would promote it.
  it('keeps nothing of the call: its listeners are let go at the end and when the caller leaves', async () => {
    const calls: Array<WeakRef<object>> = [];
    const sinks: SseSink[] = [];
    const track = (sink: SseSink) => {
      const call = { frames: new Array(1000).fill('x') };
      calls.push(new WeakRef(call));
      sink.onDisconnect(() => call.frames.pop());
      sinks.push(sink);
    };
    const web = webSse({}, 'req_4');
    track(web);
    web.end(frame('[DONE]'));
    const cancelled = webSse({}, 'req_5');
    track(cancelled);
    await cancelled.response.body?.cancel();
    const url = await serveSse((sink) => {
      track(sink);
      sink.end(frame('[DONE]'));
    });
    const res = await request(url);
    expect(await res.body.text()).toBe('data: [DONE]\n\n');
    await new Promise((resolve) => setImmediate(resolve));
    collectGarbage();
    expect(sinks).toHaveLength(3);
    expect(calls.map((c) => c.deref())).toEqual([undefined, undefined, undefined]);
  });
});
