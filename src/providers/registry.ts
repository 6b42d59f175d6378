/** Builds the chat adapters named in the configuration, and says which providers are configured. */

import type { Config } from '../config/load.js';
import { isSelfHosted, PROVIDER_ENV, type ProviderName } from '../config/providers.js';
import { UpstreamError } from '../http/upstream-error.js';
import { createAnthropicProvider } from './anthropic/provider.js';
import { createGeminiProvider } from './gemini/provider.js';
import { createOpenAiCompatibleProvider } from './openai-compatible/provider.js';
import { UpstreamPools } from './pools.js';
import type { ChatProvider } from './types.js';

/** Which wire format each chat provider speaks. */
export const CHAT_WIRE_FORMAT = {
  openai: 'openai-compatible',
  openrouter: 'openai-compatible',
  together: 'openai-compatible',
  groq: 'openai-compatible',
  deepseek: 'openai-compatible',
  xai: 'openai-compatible',
  ollama: 'openai-compatible',
  'self-hosted': 'openai-compatible',
  anthropic: 'anthropic',
  google: 'gemini',
} as const satisfies Partial<Record<ProviderName, 'openai-compatible' | 'anthropic' | 'gemini'>>;

export type ChatProviderName = keyof typeof CHAT_WIRE_FORMAT;

export interface ChatProviders {
  /**
   * The adapter for a chat provider name; undefined for a name with no chat adapter. An unconfigured
   * provider still has one: every call fails with `not_configured`, naming the missing setting.
   */
  get(name: string): ChatProvider | undefined;
  /** True when the provider has its key (a self-hosted server: its base URL), so calls can reach it. */
  isConfigured(name: string): boolean;
  /** Closes the upstream connection pools (on shutdown, after the server stopped taking requests). */
  close(): Promise<void>;
}

export function isChatProviderName(name: string): name is ChatProviderName {
  return Object.hasOwn(CHAT_WIRE_FORMAT, name);
}

/** A chat model's upstreams as its catalog entry names them: the primary, then the fallbacks. */
export interface ChatModelUpstreams {
  upstream: { provider: string };
  fallbacks?: ReadonlyArray<{ provider: string }>;
}

/** The model's upstreams in the order they are tried: the primary, then the fallbacks. */
export function chatTargets<T extends { provider: string }>(entry: {
  upstream: T;
  fallbacks?: ReadonlyArray<T>;
}): T[] {
  return [entry.upstream, ...(entry.fallbacks ?? [])];
}

/** True when at least one of the model's targets can be reached from this server. */
export function chatModelAvailable(entry: ChatModelUpstreams, chat: ChatProviders): boolean {
  return chatTargets(entry).some((t) => chat.isConfigured(t.provider));
}

/** The setting an unconfigured provider is missing: its key, or for a self-hosted server (configured by its base URL alone) that URL. */
export function missingSettingOf(name: ChatProviderName): string {
  return isSelfHosted(name) ? PROVIDER_ENV[name].baseUrl : PROVIDER_ENV[name].key;
}

/** The failure for a model whose provider is not configured (503 to the caller). */
export function notConfiguredError(name: ChatProviderName, model: string): UpstreamError {
  return new UpstreamError(
    'not_configured',
    `model ${model} needs ${missingSettingOf(name)}, which is not set`,
    {
      beforeFirstByte: true,
    },
  );
}

/**
 * One adapter per chat provider, sharing one keep-alive pool per upstream origin. Keys, base URLs and the
 * timeouts (first byte, stream idle gap, whole non-streamed answer) come from the Config only. OpenAI-compatible base URLs end at the API version, so
 * OLLAMA_BASE_URL is Ollama's OpenAI-compatible root (`http://localhost:11434/v1`).
 * @example
 * const chat = createChatProviders(config);
 * const router = createChatRouter({ retries: config.upstreamRetries });
 * const completion = await router.complete([{ provider: chat.get('openai')!, model: 'gpt-4o-mini' }], body, ctx);
 */
export function createChatProviders(
  config: Pick<Config, 'providers' | 'upstreamTimeoutMs'> & Partial<Pick<Config, 'chatTimeouts'>>,
): ChatProviders {
  const pools = new UpstreamPools();
  const adapters = new Map<ChatProviderName, ChatProvider>();
  const configured = (name: ChatProviderName) => {
    const settings = config.providers[name];
    return isSelfHosted(name) ? Boolean(settings.baseUrl) : Boolean(settings.apiKey);
  };

  for (const name of Object.keys(CHAT_WIRE_FORMAT) as ChatProviderName[]) {
    const { apiKey, baseUrl } = config.providers[name];
    const timeouts = {
      timeoutMs: config.chatTimeouts?.firstByteMs ?? config.upstreamTimeoutMs,
      idleTimeoutMs: config.chatTimeouts?.idleMs ?? config.upstreamTimeoutMs,
      answerTimeoutMs: config.chatTimeouts?.callMs ?? config.upstreamTimeoutMs,
    };
    if (!configured(name)) {
      adapters.set(name, unconfiguredProvider(name));
      continue;
    }
    const format = CHAT_WIRE_FORMAT[name];
    const key = apiKey ?? '';
    adapters.set(
      name,
      format === 'anthropic'
        ? createAnthropicProvider({ name, baseUrl, apiKey: key, ...timeouts, pools })
        : format === 'gemini'
          ? createGeminiProvider({ name, baseUrl, apiKey: key, ...timeouts, pools })
          : createOpenAiCompatibleProvider({ name, baseUrl, apiKey, ...timeouts, pools }),
    );
  }

  return {
    get: (name) => (isChatProviderName(name) ? adapters.get(name) : undefined),
    isConfigured: (name) => isChatProviderName(name) && configured(name),
    close: () => pools.close(),
  };
}

function unconfiguredProvider(name: ChatProviderName): ChatProvider {
  return {
    name,
    async complete(body) {
      throw notConfiguredError(name, String(body.model));
    },
    // biome-ignore lint/correctness/useYield: an unconfigured provider fails before producing anything.
    async *stream(body) {
      throw notConfiguredError(name, String(body.model));
    },
  };
}
