// createChatProviders: which chat providers are configured, the wire format each is built in, and how an
// unconfigured one fails.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeAnthropic } from '../../test/fakes/anthropic-upstream.js';
import type { FakeUpstream } from '../../test/fakes/chat-upstream.js';
import { startFakeGemini } from '../../test/fakes/gemini-upstream.js';
import { startFakeOpenAI } from '../../test/fakes/openai-upstream.js';
import { loadConfig } from '../config/load.js';
import { type ChatProviders, createChatProviders } from './registry.js';

const ctx = { signal: new AbortController().signal, requestId: 'req-1' };
const ask = (model: string) => ({ model, messages: [{ role: 'user', content: 'Hi' }] });

let openai: FakeUpstream;
let anthropic: FakeUpstream;
let gemini: FakeUpstream;
let ollama: FakeUpstream;
let chat: ChatProviders;

beforeAll(async () => {
  [openai, anthropic, gemini, ollama] = await Promise.all([
    startFakeOpenAI({ apiKey: 'sk-openai' }),
    startFakeAnthropic({ apiKey: 'sk-ant' }),
    startFakeGemini({ apiKey: 'gm-key' }),
    startFakeOpenAI(),
  ]);
  chat = createChatProviders(
    loadConfig({
      OPENAI_API_KEY: 'sk-openai',
      OPENAI_BASE_URL: openai.url,
      ANTHROPIC_API_KEY: 'sk-ant',
      ANTHROPIC_BASE_URL: anthropic.url,
      GEMINI_API_KEY: 'gm-key',
      GEMINI_BASE_URL: gemini.url,
      OLLAMA_BASE_URL: ollama.url,
      UPSTREAM_TIMEOUT_MS: '5000',
    }),
  );
});
afterAll(async () => {
  await chat.close();
  await Promise.all([openai, anthropic, gemini, ollama].map((f) => f.close()));
});

describe('createChatProviders', () => {
  it('says which providers are configured: a key, or for Ollama a base URL', () => {
    expect(chat.isConfigured('openai')).toBe(true);
    expect(chat.isConfigured('anthropic')).toBe(true);
    expect(chat.isConfigured('google')).toBe(true);
    expect(chat.isConfigured('ollama')).toBe(true);
    expect(chat.isConfigured('groq')).toBe(false);
    expect(chat.isConfigured('fal')).toBe(false);
    const bare = createChatProviders(loadConfig({}));
    expect(bare.isConfigured('ollama')).toBe(false);
  });

  it('builds each provider in its own wire format', async () => {
    await chat.get('openai')?.complete(ask('gpt-4o-mini'), ctx);
    await chat.get('anthropic')?.complete(ask('claude-sonnet-4-5'), ctx);
    await chat.get('google')?.complete(ask('gemini-2.5-flash'), ctx);
    await chat.get('ollama')?.complete(ask('llama3.2'), ctx);
    expect(openai.requests[0]?.path).toBe('/v1/chat/completions');
    expect(anthropic.requests[0]?.path).toBe('/v1/messages');
    expect(gemini.requests[0]?.path).toBe('/v1beta/models/gemini-2.5-flash:generateContent');
    expect(ollama.requests[0]?.headers.authorization).toBeUndefined();
  });

  it('has no chat adapter for non-chat providers', () => {
    expect(chat.get('fal')).toBeUndefined();
    expect(chat.get('nope')).toBeUndefined();
  });

  it('makes an unconfigured provider fail with not_configured, naming the missing setting', async () => {
    await expect(chat.get('groq')?.complete(ask('llama-3.3-70b-versatile'), ctx)).rejects.toMatchObject({
      kind: 'not_configured',
      message: 'model llama-3.3-70b-versatile needs GROQ_API_KEY, which is not set',
    });
    const bare = createChatProviders(loadConfig({}));
    const stream = bare.get('ollama')?.stream(ask('llama3.2'), ctx);
    await expect(stream?.[Symbol.asyncIterator]().next()).rejects.toMatchObject({
      kind: 'not_configured',
      message: 'model llama3.2 needs OLLAMA_BASE_URL, which is not set',
    });
  });
});
