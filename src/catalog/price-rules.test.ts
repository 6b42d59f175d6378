// The catalog's price rules on real models' rates: flat and tiered, per second, video tokens, per character,
// per image tier, per megapixel, per minute of audio, chat tokens at the ceiling, and margin and rounding.
import { countTokens } from 'gpt-tokenizer';
import { describe, expect, it } from 'vitest';
import { estimateInputTokens, outputTokenCeiling, TOKENS_PER_IMAGE } from './chat-tokens.js';
import { loadCatalog } from './load.js';
import { evaluateRule, finalMicroUsd, MIN_QUOTE_MICRO_USD, withMargin } from './price-rules.js';
import type { CatalogEntry, PriceRule } from './types.js';

// Golden tests: every expected amount is computed by hand in the comment beside it (micro-USD, margin 0 unless said).
const catalog = loadCatalog({ marginPercent: { '*': 0 } });

function entry(id: string): CatalogEntry {
  const e = catalog.find(id);
  if (!e) throw new Error(`no ${id}`);
  return e;
}

/** Validates (applying defaults) then quotes on the wallet rail. */
function quote(id: string, input: Record<string, unknown>) {
  const e = entry(id);
  const checked = catalog.validate(e, input);
  if (!checked.ok) throw new Error(JSON.stringify(checked.errors));
  return catalog.quote(e, checked.value, 'wallet');
}

describe('flat (per call / per video tier)', () => {
  it('prices Kling 2.5 Turbo by its duration tier', () => {
    // duration "10" → the 10 s tier: $0.70 = 700,000
    expect(quote('kwaivgi/kling-v2.5-turbo-pro', { prompt: 'x', duration: '10' })).toEqual({
      costMicroUsd: 700_000,
      unit: 'video',
      units: 1,
    });
    // default duration "5" → $0.35
    expect(quote('kwaivgi/kling-v2.5-turbo-pro', { prompt: 'x' }).costMicroUsd).toBe(350_000);
  });

  it('prices Luma Ray 2 by resolution and duration', () => {
    // 1080p (4 × $0.50) and 9 s (× 2) → $4.00
    expect(quote('luma/ray-2', { prompt: 'x', resolution: '1080p', duration: '9s' }).costMicroUsd).toBe(
      4_000_000,
    );
  });

  it('prices a music call flat', () => {
    // MiniMax Music 1.5 on fal: $0.03 per song
    expect(
      quote('minimax/music-1.5', { prompt: 'calm piano at night', lyrics_prompt: '[verse] la la la la' }),
    ).toEqual({
      costMicroUsd: 30_000,
      unit: 'call',
      units: 1,
    });
  });
});

describe('per second of output', () => {
  it('multiplies the requested length by the tier rate (Veo 3.1 via fal)', () => {
    // 6 s × $0.60 (4k, audio on) = $3.60
    expect(
      quote('google/veo-3.1', { prompt: 'x', duration: '6s', resolution: '4k', generate_audio: true }),
    ).toEqual({
      costMicroUsd: 3_600_000,
      unit: 'second',
      units: 6,
    });
    // 8 s (default) × $0.20 (1080p, audio off) = $1.60
    expect(
      quote('google/veo-3.1', { prompt: 'x', resolution: '1080p', generate_audio: false }).costMicroUsd,
    ).toBe(1_600_000);
  });

  it('adds the voice-control tier when voices are given (Kling 2.6 Pro image-to-video)', () => {
    const input = { prompt: 'x', start_image_url: 'https://e.com/a.png', duration: '10' };
    // 10 s × $0.14 (audio) = $1.40; with voice_ids 10 s × $0.168 = $1.68 (fal's own example); no audio $0.70
    expect(quote('kwaivgi/kling-v2.6-pro-i2v', input).costMicroUsd).toBe(1_400_000);
    expect(quote('kwaivgi/kling-v2.6-pro-i2v', { ...input, voice_ids: ['v1'] }).costMicroUsd).toBe(1_680_000);
    expect(quote('kwaivgi/kling-v2.6-pro-i2v', { ...input, voice_ids: [] }).costMicroUsd).toBe(1_400_000);
    expect(quote('kwaivgi/kling-v2.6-pro-i2v', { ...input, generate_audio: false }).costMicroUsd).toBe(
      700_000,
    );
  });

  it('prices the 4k tier of Veo 3.1 Fast', () => {
    // 8 s × $0.35 (4k, audio on) = $2.80
    expect(quote('google/veo-3.1-fast', { prompt: 'x', resolution: '4k' }).costMicroUsd).toBe(2_800_000);
  });

  it('counts frames at 16 fps, rounded up (Wan 2.2)', () => {
    // ceil(81 / 16) = 6 s × $0.08 (720p default) = $0.48
    expect(quote('wan-video/wan-2.2-t2v', { prompt: 'x', num_frames: 81 })).toMatchObject({
      costMicroUsd: 480_000,
      units: 6,
    });
    // ceil(17 / 16) = 2 s × $0.04 (480p) = $0.08
    expect(
      quote('wan-video/wan-2.2-t2v', { prompt: 'x', num_frames: 17, resolution: '480p' }).costMicroUsd,
    ).toBe(80_000);
  });

  it('prices a fixed-length model at its length (Hailuo 02 Pro: 6 s)', () => {
    // 6 s × $0.08 = $0.48
    expect(quote('minimax/hailuo-02-pro', { prompt: 'x' }).costMicroUsd).toBe(480_000);
  });

  it('bills music per second from milliseconds at a per-minute rate, rounding up once', () => {
    // 45,500 ms → 46 s; 46 × 800,000 / 60 = 613,333.3… → 613,334
    expect(quote('elevenlabs/music_v1', { prompt: 'x', music_length_ms: 45_500 })).toEqual({
      costMicroUsd: 613_334,
      unit: 'second',
      units: 46,
    });
  });

  it('bills video-to-video by the declared source length (Runway Aleph)', () => {
    // 7 s × $0.15 = $1.05
    expect(
      quote('runwayml/gen4_aleph', { videoUri: 'https://e.com/a.mp4', promptText: 'x', duration: 7 })
        .costMicroUsd,
    ).toBe(1_050_000);
  });
});

describe('video tokens (Seedance)', () => {
  it('prices width × height × fps × seconds / 1024 tokens per 1M', () => {
    // 1080p 16:9 = 1920 × 1088; × 24 fps × 5 s / 1024 = 244,800 tokens × $1.00/1M = $0.2448 (fal: "~$0.245")
    expect(quote('bytedance/seedance-1-pro-fast', { prompt: 'x' })).toEqual({
      costMicroUsd: 244_800,
      unit: 'video_token',
      units: 244_800,
    });
    // 720p 9:16 = 704 × 1248 = 878,592 px; × 24 × 10 / 1024 = 205,920 tokens × $2.50/1M = $0.5148
    expect(
      quote('bytedance/seedance-1-pro', {
        prompt: 'x',
        resolution: '720p',
        aspect_ratio: '9:16',
        duration: '10',
      }).costMicroUsd,
    ).toBe(514_800);
  });

  it('chooses the audio tier (Seedance 1.5 Pro)', () => {
    // 480p 1:1 = 640 × 640; × 24 × 4 / 1024 = 38,400 tokens × $1.20/1M (audio off) = $0.04608
    const input = {
      prompt: 'x',
      image_url: 'https://e.com/a.png',
      resolution: '480p',
      aspect_ratio: '1:1',
      duration: '4',
    };
    expect(quote('bytedance/seedance-1.5-pro-i2v', { ...input, generate_audio: false }).costMicroUsd).toBe(
      46_080,
    );
    // same with audio: × $2.40/1M = $0.09216
    expect(quote('bytedance/seedance-1.5-pro-i2v', input).costMicroUsd).toBe(92_160);
  });
});

describe('per character (speech)', () => {
  it('multiplies characters by the per-1k rate and rounds up', () => {
    // 1,234 chars × $0.18/1k = $0.22212
    expect(quote('elevenlabs/eleven_v3', { text: 'a'.repeat(1234), voice_id: 'v' })).toEqual({
      costMicroUsd: 222_120,
      unit: 'character',
      units: 1234,
    });
  });

  it('counts code points, and raises tiny calls to the $0.0001 floor', () => {
    // "hi 👋" = 4 characters × 15,000 / 1000 = 60 → floor 100
    expect(quote('openai/tts-1', { input: 'hi 👋', voice: 'alloy' })).toEqual({
      costMicroUsd: 100,
      unit: 'character',
      units: 4,
    });
  });
});

describe('per quality / size tier × n (images)', () => {
  it('prices GPT Image 1.5 by quality and size, times n', () => {
    // high 1536x1024 = $0.20 × 3 = $0.60
    expect(quote('openai/gpt-image-1.5', { prompt: 'x', quality: 'high', size: '1536x1024', n: 3 })).toEqual({
      costMicroUsd: 600_000,
      unit: 'image',
      units: 3,
    });
    // quality and size "auto" quote the ceiling: high × largest = $0.20
    expect(quote('openai/gpt-image-1.5', { prompt: 'x' }).costMicroUsd).toBe(200_000);
  });

  it('adds prompt tokens where the upstream bills them (GPT Image 1)', () => {
    expect(countTokens('a cat')).toBe(2);
    // low 1024x1024 $0.011 × 2 = 22,000; + 2 prompt tokens × $5/1M = 10 → 22,010
    expect(
      quote('openai/gpt-image-1', { prompt: 'a cat', quality: 'low', size: '1024x1024', n: 2 }).costMicroUsd,
    ).toBe(22_010);
  });

  it('multiplies per-image prices by num_images × max_images (Seedream 4)', () => {
    // $0.03 × 2 × 3 = $0.18
    expect(quote('bytedance/seedream-4', { prompt: 'x', num_images: 2, max_images: 3 })).toMatchObject({
      costMicroUsd: 180_000,
      units: 6,
    });
  });

  it('charges vector styles double (Recraft v3)', () => {
    // vector_illustration/line_art → $0.08; realistic_image → $0.04
    expect(
      quote('recraft-ai/recraft-v3', { prompt: 'x', style: 'vector_illustration/line_art' }).costMicroUsd,
    ).toBe(80_000);
    expect(quote('recraft-ai/recraft-v3', { prompt: 'x' }).costMicroUsd).toBe(40_000);
  });
});

describe('per megapixel', () => {
  it('is ceil(MP) × rate × num_images', () => {
    // 2048 × 1536 = 3,145,728 px = 3 MP × $0.025 × 2 images = $0.15
    expect(
      quote('black-forest-labs/flux-dev', {
        prompt: 'x',
        image_size: { width: 2048, height: 1536 },
        num_images: 2,
      }),
    ).toEqual({
      costMicroUsd: 150_000,
      unit: 'megapixel',
      units: 6,
    });
    // landscape_16_9 = 1024 × 576 = 0.5625 MP → 1 MP × $0.025
    expect(
      quote('black-forest-labs/flux-dev', { prompt: 'x', image_size: 'landscape_16_9' }).costMicroUsd,
    ).toBe(25_000);
    // 1025 × 1024 is just over 1 MP → 2 MP × $0.025 = $0.05
    expect(
      quote('black-forest-labs/flux-dev', { prompt: 'x', image_size: { width: 1025, height: 1024 } })
        .costMicroUsd,
    ).toBe(50_000);
  });

  it('prices the first megapixel apart (FLUX.2 pro)', () => {
    // 2048 × 2048 = 4 MP: $0.03 + 3 × $0.015 = $0.075
    expect(
      quote('black-forest-labs/flux-2-pro', { prompt: 'x', image_size: { width: 2048, height: 2048 } })
        .costMicroUsd,
    ).toBe(75_000);
  });
});

describe('per minute of input audio', () => {
  it('bills started minutes of the declared length', () => {
    // 61 s → 2 min × $0.006 = $0.012
    expect(quote('openai/whisper-1', { file: 'https://e.com/a.mp3', duration: 61 })).toEqual({
      costMicroUsd: 12_000,
      unit: 'minute',
      units: 2,
    });
    // 30 s → 1 min × $0.22/h = 220,000 / 60 = 3,666.7 → 3,667
    expect(quote('elevenlabs/scribe_v1', { file: 'https://e.com/a.mp3', duration: 30 }).costMicroUsd).toBe(
      3_667,
    );
  });

  it('quotes the ceiling when no length is declared', () => {
    // AssemblyAI: ceiling 14,400 s = 240 min × $0.15/h (2,500 per min) = $0.60
    expect(quote('assemblyai/universal', { audio_url: 'https://e.com/a.mp3' })).toMatchObject({
      costMicroUsd: 600_000,
      units: 240,
    });
  });

  it('adds Deepgram add-ons through the rate table', () => {
    // multilingual with diarization: $0.0052 + $0.002 = 7,200 per min × 3 min (125 s) = 21,600
    expect(
      quote('deepgram/nova-3', {
        url: 'https://e.com/a.mp3',
        language: 'multi',
        diarize: true,
        duration: 125,
      }).costMicroUsd,
    ).toBe(21_600);
  });
});

describe('chat: per 1M input + output tokens at the ceiling', () => {
  const hello = { messages: [{ role: 'user', content: 'Hello' }] };

  it('bills estimated input plus max_tokens × n', () => {
    // input = 3 (priming) + 4 (message) + 1 ("Hello") = 8 tokens
    expect(estimateInputTokens(structuredClone(hello))).toBe(8);
    // GPT-4.1: (8 × 2,000,000 + 100 × 8,000,000) / 1M = 16 + 800 = 816
    expect(quote('openai/gpt-4.1', { ...hello, max_tokens: 100 })).toEqual({
      costMicroUsd: 816,
      unit: 'token',
      units: 108,
    });
    // n = 2 doubles the output ceiling: 16 + 1,600 = 1,616
    expect(quote('openai/gpt-4.1', { ...hello, max_tokens: 100, n: 2 }).costMicroUsd).toBe(1_616);
    // no max_tokens → 1024: 16 + 8,192 = 8,208
    expect(quote('openai/gpt-4.1', structuredClone(hello)).costMicroUsd).toBe(8_208);
    // max_completion_tokens is the same ceiling
    expect(quote('openai/gpt-4.1', { ...hello, max_completion_tokens: 100 }).costMicroUsd).toBe(816);
  });

  it('counts each image at a fixed ceiling', () => {
    const input = {
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Hello' },
            { type: 'image_url', image_url: { url: 'https://e.com/a.png' } },
          ],
        },
      ],
    };
    // 3 + 4 + 1 + 1,600 = 1,608
    expect(estimateInputTokens(input)).toBe(3 + 4 + 1 + TOKENS_PER_IMAGE);
  });

  it('switches to long-context rates above the threshold', () => {
    const rule: PriceRule = {
      kind: 'chat_tokens',
      inputPer1M: 1_000_000,
      outputPer1M: 2_000_000,
      longContext: { aboveTokens: 5, inputPer1M: 10_000_000, outputPer1M: 20_000_000 },
    };
    // 8 input tokens > 5 → (8 × 10,000,000 + 10 × 20,000,000) / 1M = 80 + 200 = 280
    const q = evaluateRule(rule, { messages: [{ role: 'user', content: 'Hello' }], max_tokens: 10 }, {});
    expect(finalMicroUsd(q.cost, 0)).toBe(280);
    expect(q.units).toBe(18);
    // the same call under the threshold uses the base rates: 8 × 1 + 10 × 2 = 28 → floor 100
    const base = evaluateRule(
      { ...rule, longContext: undefined },
      { messages: [{ role: 'user', content: 'Hello' }], max_tokens: 10 },
      {},
    );
    expect(finalMicroUsd(base.cost, 0)).toBe(MIN_QUOTE_MICRO_USD);
  });

  it('reads the output ceiling from max_tokens or max_completion_tokens (the larger), default 1024', () => {
    expect(outputTokenCeiling({})).toBe(1024);
    expect(outputTokenCeiling({ max_tokens: 10, max_completion_tokens: 20 })).toBe(20);
  });
});

describe('margin and rounding', () => {
  it('applies the provider margin and rounds up once', () => {
    const withFal20 = loadCatalog({ marginPercent: { '*': 0, fal: 20 } });
    const flux = withFal20.find('black-forest-labs/flux-dev') as CatalogEntry;
    // $0.025 × 1.2 = $0.03
    expect(
      withFal20.quote(flux, { prompt: 'x', image_size: 'square_hd', num_images: 1 }, 'wallet').costMicroUsd,
    ).toBe(30_000);
    const tts = withFal20.find('openai/tts-1') as CatalogEntry;
    // openai has no margin of its own and the default is 0: 10 chars × 15 = 150
    expect(withFal20.quote(tts, { input: 'Halo dunia', voice: 'alloy' }, 'wallet').costMicroUsd).toBe(150);
  });

  it('takes fractional margins exactly', () => {
    // 150 × 1.125 = 168.75 → 169
    expect(withMargin({ num: 150n, den: 1n }, 12.5)).toBe(169);
    // 613,333.33… × 1.10 = 674,666.66… → 674,667 (one rounding, not two)
    expect(withMargin({ num: 46n * 800_000n, den: 60n }, 10)).toBe(674_667);
  });

  it('prices tools from the spec table per rail, without margin', () => {
    const withMarginAll = loadCatalog({ marginPercent: { '*': 50 } });
    const embed = withMarginAll.find('tools/embed') as CatalogEntry;
    expect(withMarginAll.quote(embed, { text: 'x' }, 'wallet')).toEqual({
      costMicroUsd: 500,
      unit: 'call',
      units: 1,
    });
    expect(withMarginAll.quote(embed, { text: 'x' }, 'prepaid').costMicroUsd).toBe(1_000);
  });
});
