// The Node exchange's hang-up wiring: a caller leaving is told, and a finished call is let go.
import { createServer, type Server } from 'node:http';
import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { closeServer, listen } from '../../test/fakes/http.js';
import { collectGarbage } from '../../test/support/gc.js';
import type { Exchange } from './exchange.js';
import { nodeExchange } from './node-exchange.js';

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map(closeServer));
});

async function serve(handle: (x: Exchange) => void): Promise<string> {
  const server = createServer((incoming, outgoing) => handle(nodeExchange(incoming, outgoing, '/', 'req_1')));
  servers.push(server);
  return listen(server);
}

describe('nodeExchange hang-ups', () => {
  it('tells the listeners of a call whose caller left before the answer', async () => {
    let told = 0;
    const left = new Promise<void>((resolve) => {
      void serve((x) => {
        x.onHangUp(() => {
          told++;
          resolve();
        });
      }).then(async (url) => {
        const aborted = new AbortController();
        const pending = request(url, { signal: aborted.signal }).catch(() => undefined);
        setTimeout(() => aborted.abort(), 50);
        await pending;
      });
    });
    await left;
    expect(told).toBe(1);
  });

  it('keeps nothing of a finished call: wherever V8 put the exchange, a scavenge would promote what it holds', async () => {
    const exchanges: Exchange[] = [];
    let call: WeakRef<object> | undefined;
    const url = await serve((x) => {
      const state = { frames: new Array(1000).fill('x') };
      call = new WeakRef(state);
      x.onHangUp(() => state.frames.pop());
      exchanges.push(x);
      x.send(200, '{}', { 'content-type': 'application/json' });
    });
    const res = await request(url);
    expect(await res.body.text()).toBe('{}');
    await new Promise((resolve) => setTimeout(resolve, 20));
    collectGarbage();
    expect(exchanges).toHaveLength(1);
    expect(call?.deref()).toBeUndefined();
  });
});
