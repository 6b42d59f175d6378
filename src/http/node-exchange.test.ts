// The Node exchange's hang-up wiring: a caller leaving is told, and a finished call is let go.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import type { Exchange } from './exchange.js';
import { nodeExchange } from './node-exchange.js';

const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

async function serve(handle: (x: Exchange) => void): Promise<string> {
  const server = createServer((incoming, outgoing) => handle(nodeExchange(incoming, outgoing, '/', 'req_1')));
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
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
    setFlagsFromString('--expose-gc');
    (runInNewContext('gc') as () => void)();
    expect(exchanges).toHaveLength(1);
    expect(call?.deref()).toBeUndefined();
  });
});
