/** Builds the media adapters (fal, OpenAI with Sora, Replicate, ElevenLabs, AssemblyAI, Deepgram, Runway, MiniMax, Google) from the configuration, and says which catalog models they run. */
import type { Config } from '../../config/load.js';
import type { ProviderName } from '../../config/providers.js';
import { createAssemblyAiProvider } from '../assemblyai/provider.js';
import { createDeepgramProvider } from '../deepgram/provider.js';
import { createElevenLabsProvider } from '../elevenlabs/provider.js';
import { createFalProvider } from '../fal/provider.js';
import { createGoogleImageProvider, createGoogleVideoProvider } from '../google-media/provider.js';
import { createMiniMaxProvider } from '../minimax/provider.js';
import { createOpenAiMediaProvider, createOpenAiVideoProvider } from '../openai/provider.js';
import { UpstreamPools } from '../pools.js';
import { createReplicateProvider } from '../replicate/provider.js';
import { createRunwayProvider } from '../runway/provider.js';
import { UpstreamClient } from '../upstream-client.js';
import type { ReadObserver } from './read-retry.js';
import type { MediaProvider } from './types.js';

/** What the registry reads of a catalog model entry to pick its adapter. */
export interface MediaModelRef {
  category: string;
  upstream: { provider: string };
  output: string;
}

export interface MediaProviders {
  /** The adapter that runs this model, or undefined when kasir has none for its provider or its kind. */
  forEntry(entry: MediaModelRef): MediaProvider | undefined;
  close(): Promise<void>;
}

/** `observer` counts the queue reads retried and given up (the /metrics counters). */
export function createMediaProviders(config: Config, observer?: ReadObserver): MediaProviders {
  const pools = new UpstreamPools();
  const client = (name: ProviderName) => {
    const p = config.providers[name];
    return new UpstreamClient({
      provider: name,
      baseUrl: p.baseUrl,
      // Between two chunks of a body; the work's first byte and a job's reads have their own limits.
      timeoutMs: config.upstreamTimeoutMs,
      firstByteTimeoutMs: config.mediaModels.firstByteTimeoutMs,
      readTimeoutMs: config.mediaModels.readTimeoutMs,
      pools,
      secret: p.apiKey,
    });
  };
  const timing = {
    firstMs: config.mediaModels.pollFirstMs,
    maxMs: config.mediaModels.pollMaxMs,
    deadlineMs: config.mediaModels.waitMs,
    reads: {
      retries: config.mediaModels.readRetries,
      baseMs: config.mediaModels.readRetryBaseMs,
      maxMs: config.mediaModels.readRetryMaxMs,
      observer,
    },
  };
  const fal = createFalProvider(config.providers.fal, client('fal'), timing);
  const openai = createOpenAiMediaProvider(config.providers.openai, client('openai'));
  const openaiVideo = createOpenAiVideoProvider(config.providers.openai, client('openai'), timing);
  const elevenlabs = createElevenLabsProvider(config.providers.elevenlabs, client('elevenlabs'));
  const replicate = createReplicateProvider(config.providers.replicate, client('replicate'), timing);
  const assemblyai = createAssemblyAiProvider(config.providers.assemblyai, client('assemblyai'), timing);
  const deepgram = createDeepgramProvider(config.providers.deepgram, client('deepgram'));
  const runway = createRunwayProvider(config.providers.runway, client('runway'), timing);
  const minimax = createMiniMaxProvider(config.providers.minimax, client('minimax'));
  const googleImages = createGoogleImageProvider(config.providers.google, client('google'));
  const googleVideo = createGoogleVideoProvider(config.providers.google, client('google'), timing);
  return {
    forEntry(entry) {
      if (entry.category === 'chat') return undefined;
      if (entry.upstream.provider === 'fal') return fal;
      if (entry.upstream.provider === 'replicate') return replicate;
      if (entry.upstream.provider === 'elevenlabs') return elevenlabs;
      if (entry.upstream.provider === 'assemblyai') return assemblyai;
      if (entry.upstream.provider === 'deepgram') return deepgram;
      if (entry.upstream.provider === 'runway') return runway;
      if (entry.upstream.provider === 'minimax') return minimax;
      if (entry.upstream.provider === 'google' && entry.output === 'image') return googleImages;
      if (entry.upstream.provider === 'google' && entry.output === 'video') return googleVideo;
      if (entry.upstream.provider === 'openai') return entry.output === 'video' ? openaiVideo : openai;
      return undefined;
    },
    close: () => pools.close(),
  };
}
