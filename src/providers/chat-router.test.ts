// The chat router: retries and fallbacks across targets for complete() and stream(), when it gives up, and
// UpstreamError.retryable.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { readChatStream } from '../../test/fakes/chat-upstream.js';
import { type FakeUpstream, startFakeOpenAI } from '../../test/fakes/openai-upstream.js';
import { UpstreamError } from '../http/upstream-error.js';
import { type ChatTarget, createChatRouter, type FailedAttempt } from './chat-router.js';
import { createOpenAiCompatibleProvider } from './openai-compatible/provider.js';
import { UpstreamPools } from './pools.js';
import { notConfiguredError } from './registry.js';
import type { CallContext, ChatProvider } from './types.js';

const ctx = (signal = new AbortController().signal): CallContext => ({ signal, requestId: 'req-1' });
const body = { model: 'kasir/chat-model', messages: [{ role: 'user', content: 'Hi' }] };

let primaryFake: FakeUpstream;
let backupFake: FakeUpstream;
let pools: UpstreamPools;
let primary: ChatTarget;
let backup: ChatTarget;
let failures: FailedAttempt[];

const router = (retries = 2, baseDelayMs = 1) =>
  createChatRouter({ retries, baseDelayMs, onFailedAttempt: (failure) => failures.push(failure) });

beforeAll(async () => {
  primaryFake = await startFakeOpenAI();
  backupFake = await startFakeOpenAI();
  pools = new UpstreamPools();
  const adapter = (name: string, url: string, timeoutMs = 2_000) =>
    createOpenAiCompatibleProvider({ name, baseUrl: url, apiKey: 'sk-test', timeoutMs, pools });
  primary = { provider: adapter('openai', primaryFake.url), model: 'gpt-4o-mini' };
  backup = { provider: adapter('openrouter', backupFake.url), model: 'openai/gpt-4o-mini' };
});
afterAll(async () => {
  await pools.close();
  await primaryFake.close();
  await backupFake.close();
});
beforeEach(() => {
  failures = [];
  for (const fake of [primaryFake, backupFake]) {
    fake.requests.length = 0;
    fake.setScript({});
  }
});

describe('chat router, complete', () => {
  it('sends each target its own model id', async () => {
    const completion = await router().complete([primary, backup], body, ctx());
    expect(primaryFake.requests[0]?.body.model).toBe('gpt-4o-mini');
    expect(completion.model).toBe('gpt-4o-mini');
    expect(backupFake.requests).toHaveLength(0);
  });

  it('retries a failure before the first byte, then succeeds on the same target', async () => {
    primaryFake.setScript(
      { failure: { kind: 'status', status: 500 } },
      { failure: { kind: 'status', status: 429 } },
      { text: 'ok' },
    );
    const completion = await router().complete([primary, backup], body, ctx());
    expect(completion.choices[0]).toMatchObject({ message: { content: 'ok' } });
    expect(primaryFake.requests).toHaveLength(3);
    expect(backupFake.requests).toHaveLength(0);
    expect(failures.map((f) => f.next)).toEqual(['retry', 'retry']);
  });

  it('falls back to the next target once the retries are spent', async () => {
    primaryFake.setScript({ failure: { kind: 'status', status: 503 } });
    backupFake.setScript({ text: 'from the backup' });
    const completion = await router(2).complete([primary, backup], body, ctx());
    expect(completion.choices[0]).toMatchObject({ message: { content: 'from the backup' } });
    expect(primaryFake.requests).toHaveLength(3);
    expect(backupFake.requests[0]?.body.model).toBe('openai/gpt-4o-mini');
    expect(failures.map((f) => f.next)).toEqual(['retry', 'retry', 'fallback']);
  });

  it('gives up with the last failure when every target fails', async () => {
    primaryFake.setScript({ failure: { kind: 'status', status: 500 } });
    backupFake.setScript({ failure: { kind: 'status', status: 502 } });
    await expect(router(1).complete([primary, backup], body, ctx())).rejects.toMatchObject({
      kind: 'upstream',
      options: { status: 502 },
    });
    expect(primaryFake.requests).toHaveLength(2);
    expect(backupFake.requests).toHaveLength(2);
  });

  it('never retries nor falls back on bad_request', async () => {
    primaryFake.setScript({ failure: { kind: 'status', status: 400 } });
    await expect(router().complete([primary, backup], body, ctx())).rejects.toMatchObject({
      kind: 'bad_request',
    });
    expect(primaryFake.requests).toHaveLength(1);
    expect(backupFake.requests).toHaveLength(0);
  });

  it('does not retry a rejected key on the same target, but falls back', async () => {
    primaryFake.setScript({ failure: { kind: 'status', status: 401 } });
    await router().complete([primary, backup], body, ctx());
    expect(primaryFake.requests).toHaveLength(1);
    expect(backupFake.requests).toHaveLength(1);
  });

  it('does not retry a timeout on the same target, but falls back', async () => {
    const slow: ChatTarget = {
      provider: createOpenAiCompatibleProvider({
        name: 'openai',
        baseUrl: primaryFake.url,
        apiKey: 'k',
        timeoutMs: 150,
        pools,
      }),
      model: 'gpt-4o-mini',
    };
    primaryFake.setScript({ failure: { kind: 'hang' } });
    await router().complete([slow, backup], body, ctx());
    expect(primaryFake.requests).toHaveLength(1);
    expect(backupFake.requests).toHaveLength(1);
  });

  it('skips an unconfigured target, and reports not_configured only when nothing else failed', async () => {
    const missing: ChatTarget = { provider: unconfigured('anthropic'), model: 'claude-sonnet-4-5' };
    await router().complete([missing, backup], body, ctx());
    expect(backupFake.requests).toHaveLength(1);
    await expect(router().complete([missing], body, ctx())).rejects.toMatchObject({
      kind: 'not_configured',
      message: 'model claude-sonnet-4-5 needs ANTHROPIC_API_KEY, which is not set',
    });
    backupFake.setScript({ failure: { kind: 'status', status: 500 } });
    await expect(router(0).complete([backup, missing], body, ctx())).rejects.toMatchObject({
      kind: 'upstream',
    });
  });

  it('stops retrying at once when the call is aborted, with the abort reason', async () => {
    primaryFake.setScript({ failure: { kind: 'status', status: 500 } });
    const controller = new AbortController();
    const reason = new Error('client went away');
    const started = Date.now();
    const pending = createChatRouter({ retries: 5, baseDelayMs: 10_000 }).complete(
      [primary, backup],
      body,
      ctx(controller.signal),
    );
    setTimeout(() => controller.abort(reason), 50);
    await expect(pending).rejects.toBe(reason);
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(primaryFake.requests).toHaveLength(1);
    expect(backupFake.requests).toHaveLength(0);
  });
});

describe('chat router, stream', () => {
  it('retries and falls back while the stream has produced nothing', async () => {
    primaryFake.setScript({ failure: { kind: 'status', status: 500 } });
    backupFake.setScript({ text: 'streamed from the backup' });
    const read = await readChatStream(router(1).stream([primary, backup], body, ctx()));
    expect(read.text).toBe('streamed from the backup');
    expect(read.end?.usage.total_tokens).toBe(34);
    expect(primaryFake.requests).toHaveLength(2);
    expect(backupFake.requests).toHaveLength(1);
  });

  it('never retries or falls back after the first frame: the failure propagates', async () => {
    primaryFake.setScript({ failure: { kind: 'die', afterEvents: 3 } });
    const frames: Buffer[] = [];
    const run = async () => {
      for await (const event of router().stream([primary, backup], body, ctx()))
        if (event.type === 'frame') frames.push(event.bytes);
    };
    await expect(run()).rejects.toMatchObject({ kind: 'upstream', options: { beforeFirstByte: false } });
    expect(frames.length).toBeGreaterThan(0);
    expect(primaryFake.requests).toHaveLength(1);
    expect(backupFake.requests).toHaveLength(0);
  });

  it('closes the upstream stream when the consumer stops early', async () => {
    primaryFake.setScript({ events: 10, delayMs: 30 });
    for await (const event of router().stream([primary], body, ctx())) {
      expect(event.type).toBe('frame');
      break;
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(primaryFake.requests[0]?.finished).toBe(false);
    expect(primaryFake.requests[0]?.eventsSent).toBeLessThan(10);
  });

  it('stops the upstream when aborted mid-stream', async () => {
    primaryFake.setScript({ events: 10, delayMs: 30 });
    const controller = new AbortController();
    const run = async () => {
      for await (const event of router().stream([primary, backup], body, ctx(controller.signal))) {
        if (event.type === 'frame') controller.abort();
      }
    };
    await expect(run()).rejects.toMatchObject({ name: 'AbortError' });
    expect(backupFake.requests).toHaveLength(0);
  });
});

function unconfigured(name: 'anthropic'): ChatProvider {
  return {
    name,
    complete: async (request) => {
      throw notConfiguredError(name, String(request.model));
    },
    stream: (request) => ({
      [Symbol.asyncIterator]: () => ({
        next: () => Promise.reject(notConfiguredError(name, String(request.model))),
      }),
    }),
  };
}

describe('UpstreamError.retryable', () => {
  it('is false once something was received', () => {
    expect(new UpstreamError('upstream', 'x', { beforeFirstByte: false }).retryable).toBe(false);
    expect(new UpstreamError('timeout', 'x', { beforeFirstByte: true }).retryable).toBe(true);
  });
});
