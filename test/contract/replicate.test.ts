// Contract: kasir's Replicate adapter against the official `replicate` client, both driven against one local
// recording server; for each operation (create a prediction on an official model, with and without waiting; read
// it; cancel it) kasir's request matches the SDK's: method, path, auth header, the `Prefer` header, body fields.
import Replicate from 'replicate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createReplicateProvider } from '../../src/providers/replicate/provider.js';
import { pathOf, type Recorder, startRecorder } from '../support/recorder.js';
import { adapterDeps, compareRequests, mediaCall, queueOf, TIMING } from './adapter-kit.js';

const TOKEN = 'r8_contract_token';
const prediction = (status: string) => ({
  id: 'p0123abc',
  model: 'black-forest-labs/flux-schnell',
  version: 'hidden',
  input: { prompt: 'a teapot' },
  status,
  output: status === 'succeeded' ? ['https://replicate.delivery/x/out-0.webp'] : null,
  error: null,
  logs: '',
  urls: { get: 'x', cancel: 'x' },
});

describe('Replicate adapter ⇔ official replicate SDK', () => {
  let rec: Recorder;
  let sdk: Replicate;
  let kasir: ReturnType<typeof createReplicateProvider>;
  let close: () => Promise<void>;

  beforeAll(async () => {
    rec = await startRecorder((r) => {
      if (r.method === 'POST' && /\/cancel$/.test(pathOf(r))) return { json: prediction('canceled') };
      // Created with Prefer: wait, the prediction ends within the wait (so kasir's run does not go on polling).
      if (r.method === 'POST')
        return { status: 201, json: prediction(r.headers.prefer ? 'succeeded' : 'starting') };
      return { json: prediction('processing') };
    });
    sdk = new Replicate({ auth: TOKEN, baseUrl: `${rec.url}/v1` });
    const deps = adapterDeps('replicate', rec.url, TOKEN);
    kasir = createReplicateProvider(deps.config, deps.client, TIMING);
    close = deps.close;
  });
  afterAll(async () => {
    await close();
    await rec.close();
  });

  const both = (a: () => Promise<unknown>, b: () => Promise<unknown>) => compareRequests(rec, a, b);

  it('creates a prediction on an official model (the async job path): same path, auth and input', async () => {
    const input = { prompt: 'a teapot', num_outputs: 1 };
    const { fromSdk, fromKasir } = await both(
      () => sdk.predictions.create({ model: 'black-forest-labs/flux-schnell', input }),
      () => queueOf(kasir).submit(mediaCall('black-forest-labs/flux-schnell', 'image', input)),
    );
    expect(pathOf(fromSdk)).toBe('/v1/models/black-forest-labs/flux-schnell/predictions');
    expect(fromKasir?.json).toEqual(fromSdk?.json);
    expect(fromKasir?.headers.prefer).toBe(fromSdk?.headers.prefer);
  });

  it('creates a prediction waiting for it (the synchronous path): the same Prefer: wait', async () => {
    const input = { prompt: 'a teapot' };
    const { fromSdk, fromKasir } = await both(
      () => sdk.predictions.create({ model: 'black-forest-labs/flux-schnell', input, wait: true }),
      () => kasir.run(mediaCall('black-forest-labs/flux-schnell', 'image', input)),
    );
    expect(String(fromSdk?.headers.prefer)).toMatch(/^wait/);
    expect(String(fromKasir?.headers.prefer)).toMatch(/^wait/);
    expect(fromKasir?.json).toEqual(fromSdk?.json);
  });

  it('reads a prediction and cancels it at the same paths', async () => {
    await both(
      () => sdk.predictions.get('p0123abc'),
      () => queueOf(kasir).status({ id: 'p0123abc', produces: 'image' }, mediaCall('x', 'image', {}).signal),
    );
    await both(
      () => sdk.predictions.cancel('p0123abc'),
      () => queueOf(kasir).cancel({ id: 'p0123abc' }, mediaCall('x', 'image', {}).signal),
    );
  });
});
