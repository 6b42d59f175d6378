// Input validation of catalog entries (ajv): field names as JSON paths, file references, and the messages for
// each category's inputs (image, video, speech, music, chat, tools, a free lookup's GET query).
import { describe, expect, it } from 'vitest';
import type { FieldError } from '../http/errors.js';
import { loadCatalog } from './load.js';
import type { CatalogEntry } from './types.js';
import { fieldName, isFileRef } from './validate.js';

const catalog = loadCatalog({ marginPercent: { '*': 0 } });

function entry(id: string): CatalogEntry {
  const e = catalog.find(id);
  if (!e) throw new Error(`no ${id}`);
  return e;
}

function errorsOf(id: string, input: unknown): FieldError[] {
  const checked = catalog.validate(entry(id), input);
  return checked.ok ? [] : checked.errors;
}

function validated(id: string, input: Record<string, unknown>): Record<string, unknown> {
  const checked = catalog.validate(entry(id), input);
  if (!checked.ok) throw new Error(JSON.stringify(checked.errors));
  return checked.value;
}

const URL = 'https://example.com/a.png';
const messages = [{ role: 'user', content: 'Hi' }];

describe('field names and file references', () => {
  it('names fields as JSON paths', () => {
    expect(fieldName('/messages/0/content')).toBe('messages[0].content');
    expect(fieldName('', 'prompt')).toBe('prompt');
    expect(fieldName('/a~1b')).toBe('a/b');
    expect(fieldName('')).toBe('(body)');
  });

  it('takes http(s) URLs and data: URIs, and bare base64 only in *_base64 fields', () => {
    expect(isFileRef('https://example.com/x.png', 'image_url')).toBe(true);
    expect(isFileRef('data:image/png;base64,iVBORw0KGgo=', 'image_url')).toBe(true);
    expect(isFileRef('iVBORw0KGgoAAAANSUhEUg==', 'image_base64')).toBe(true);
    expect(isFileRef('iVBORw0KGgoAAAANSUhEUg==', 'image_url')).toBe(false);
    expect(isFileRef('ftp://example.com/x.png', 'image_url')).toBe(false);
    expect(isFileRef('not a url', 'image_url')).toBe(false);
  });

  it('refuses a body that is not an object', () => {
    expect(errorsOf('openai/tts-1', ['x'])).toEqual([{ field: '(body)', message: 'must be a JSON object' }]);
  });
});

describe('text-to-image', () => {
  it('requires the prompt and applies defaults', () => {
    expect(errorsOf('black-forest-labs/flux-dev', {})).toEqual([{ field: 'prompt', message: 'is required' }]);
    expect(validated('black-forest-labs/flux-dev', { prompt: 'x' })).toMatchObject({
      num_images: 1,
      output_format: 'jpeg',
      image_size: 'landscape_4_3',
    });
  });

  it('names the allowed values of a wrong enum and the bound of a range', () => {
    expect(
      errorsOf('black-forest-labs/flux-dev', { prompt: 'x', output_format: 'gif', num_images: 9 }),
    ).toEqual([
      { field: 'num_images', message: 'must be ≤ 4' },
      { field: 'output_format', message: 'must be one of: "jpeg", "png"' },
    ]);
  });

  it('explains a preset-or-size input by the branch the value chose', () => {
    expect(
      errorsOf('black-forest-labs/flux-dev', { prompt: 'x', image_size: { width: 9000, height: 512 } }),
    ).toEqual([{ field: 'image_size.width', message: 'must be ≤ 4096' }]);
    const [preset] = errorsOf('black-forest-labs/flux-dev', { prompt: 'x', image_size: 'huge' });
    expect(preset?.field).toBe('image_size');
    expect(preset?.message).toContain('"square_hd"');
  });

  it('shortens very long value lists', () => {
    const [style] = errorsOf('recraft-ai/recraft-v3', { prompt: 'x', style: 'nope' });
    expect(style?.message).toMatch(/in all; see \/v1\/schema\)$/);
  });
});

describe('text-to-video and image-to-video', () => {
  it('keeps string enums strings: duration 10 is not "10"', () => {
    expect(errorsOf('kwaivgi/kling-v2.5-turbo-pro', { prompt: 'x', duration: 10 })).toEqual([
      { field: 'duration', message: 'must be one of: "5", "10"' },
    ]);
    expect(errorsOf('google/veo-3.1', { prompt: 'x', duration: '5s' })[0]?.message).toBe(
      'must be one of: "4s", "6s", "8s"',
    );
  });

  it('refuses a tier the model does not have', () => {
    expect(errorsOf('google/veo-3.1-fast', { prompt: 'x', resolution: '8k' })[0]?.field).toBe('resolution');
  });

  it('requires the source image and checks it is a file reference', () => {
    expect(errorsOf('kwaivgi/kling-v2.6-pro-i2v', { prompt: 'x' })).toEqual([
      { field: 'start_image_url', message: 'is required' },
    ]);
    const [bad] = errorsOf('kwaivgi/kling-v2.5-turbo-pro-i2v', { prompt: 'x', image_url: 'my-photo.png' });
    expect(bad).toEqual({
      field: 'image_url',
      message: 'must be an http(s) URL or a base64 data: URI (upload large files to POST /v1/media first)',
    });
    expect(
      errorsOf('kwaivgi/kling-v2.5-turbo-pro-i2v', { prompt: 'x', image_url: 'data:image/png;base64,AAAA' }),
    ).toEqual([]);
  });

  it('keeps integer ranges (Runway: 2..10 s, ratio required)', () => {
    expect(errorsOf('runwayml/gen4_turbo', { promptImage: URL, duration: 11 })).toEqual([
      { field: 'duration', message: 'must be ≤ 10' },
      { field: 'ratio', message: 'is required' },
    ]);
  });
});

describe('video-to-video', () => {
  it('bounds the declared source length and requires the source', () => {
    expect(errorsOf('luma/ray-2-modify', { duration: 31 })).toEqual([
      { field: 'duration', message: 'must be ≤ 30' },
      { field: 'video_url', message: 'is required' },
    ]);
  });
});

describe('text-to-speech', () => {
  it('checks length, voice and speed', () => {
    expect(errorsOf('openai/tts-1', { input: 'x'.repeat(4097), voice: 'robot', speed: 5 })).toEqual([
      { field: 'input', message: 'must be at most 4096 characters' },
      { field: 'speed', message: 'must be ≤ 4' },
      {
        field: 'voice',
        message:
          'must be one of: "alloy", "ash", "coral", "echo", "fable", "onyx", "nova", "sage", "shimmer"',
      },
    ]);
    expect(errorsOf('openai/tts-1', { input: '', voice: 'alloy' })).toEqual([
      { field: 'input', message: 'must not be empty' },
    ]);
  });

  it('checks nested settings', () => {
    expect(errorsOf('minimax/speech-02-hd', { text: 'x', voice_setting: { speed: 3 } })).toEqual([
      { field: 'voice_setting.speed', message: 'must be ≤ 2' },
    ]);
  });
});

describe('speech-to-text', () => {
  it('requires the audio and checks the declared length', () => {
    expect(errorsOf('openai/whisper-1', { duration: 0 })).toEqual([
      { field: 'duration', message: 'must be ≥ 1' },
      { field: 'file', message: 'is required' },
    ]);
    expect(errorsOf('deepgram/nova-3', { url: 'ftp://x/y.mp3' })[0]?.field).toBe('url');
  });
});

describe('music', () => {
  it('checks prompt lengths and required lyrics', () => {
    expect(errorsOf('minimax/music-1.5', { prompt: 'short' })).toEqual([
      { field: 'lyrics_prompt', message: 'is required' },
      { field: 'prompt', message: 'must be at least 10 characters' },
    ]);
    expect(errorsOf('elevenlabs/music_v1', { prompt: 'x', music_length_ms: 1000 })).toEqual([
      { field: 'music_length_ms', message: 'must be ≥ 3000' },
    ]);
  });
});

describe('chat', () => {
  it('requires messages and checks roles and content', () => {
    expect(errorsOf('openai/gpt-4.1', {})).toEqual([{ field: 'messages', message: 'is required' }]);
    expect(errorsOf('openai/gpt-4.1', { messages: [] })).toEqual([
      { field: 'messages', message: 'must have at least 1 item' },
    ]);
    expect(
      errorsOf('openai/gpt-4.1', { messages: [{ role: 'robot', content: 'x' }, { role: 'user' }] }),
    ).toEqual([
      { field: 'messages[0].role', message: 'must be one of: "system", "user", "assistant", "tool"' },
      { field: 'messages[1].content', message: 'is required' },
    ]);
    expect(errorsOf('openai/gpt-4.1', { messages: [{ role: 'tool', content: 'x' }] })).toEqual([
      { field: 'messages[0].tool_call_id', message: 'is required' },
    ]);
  });

  it('accepts the common wire format with tools, images and options', () => {
    const body = {
      model: 'gpt-4.1',
      messages: [
        { role: 'system', content: 'Be brief.' },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'What is this?' },
            { type: 'image_url', image_url: { url: URL, detail: 'low' } },
          ],
        },
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'c1', type: 'function', function: { name: 'look', arguments: '{}' } }],
        },
        { role: 'tool', tool_call_id: 'c1', content: 'a cat' },
      ],
      tools: [{ type: 'function', function: { name: 'look', parameters: { type: 'object' } } }],
      tool_choice: { type: 'function', function: { name: 'look' } },
      temperature: 0.2,
      stop: ['\n'],
      stream: true,
      stream_options: { include_usage: true },
      user: 'passed-through',
    };
    expect(errorsOf('openai/gpt-4.1', body)).toEqual([]);
  });

  it('refuses images on a model without vision, naming the part', () => {
    const body = {
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'x' },
            { type: 'image_url', image_url: { url: URL } },
          ],
        },
      ],
    };
    expect(errorsOf('deepseek/deepseek-chat', body)).toEqual([
      {
        field: 'messages[0].content[1]',
        message: 'this model does not accept images; send text only or choose a model with vision',
      },
    ]);
  });

  it('refuses tools and reasoning_effort where the model has none', () => {
    const tools = [{ type: 'function', function: { name: 'f' } }];
    expect(errorsOf('deepseek/deepseek-reasoner', { messages, tools })).toEqual([
      { field: 'tools', message: 'this model does not support tools (function calling)' },
    ]);
    expect(errorsOf('openai/gpt-4.1', { messages, reasoning_effort: 'high' })).toEqual([
      { field: 'reasoning_effort', message: 'this model has no reasoning_effort control' },
    ]);
    expect(errorsOf('openai/o3', { messages, reasoning_effort: 'extreme' })).toEqual([
      { field: 'reasoning_effort', message: 'must be one of: "low", "medium", "high"' },
    ]);
    expect(errorsOf('openai/o3', { messages, reasoning_effort: 'high' })).toEqual([]);
  });

  it('checks max_tokens against the model, and the other ranges', () => {
    expect(errorsOf('openai/gpt-4o', { messages, max_tokens: 20_000 })).toEqual([
      { field: 'max_tokens', message: 'must be ≤ 16384' },
    ]);
    expect(errorsOf('openai/gpt-4o', { messages, max_tokens: 0, temperature: 3, n: 11 })).toEqual([
      { field: 'max_tokens', message: 'must be ≥ 1' },
      { field: 'n', message: 'must be ≤ 10' },
      { field: 'temperature', message: 'must be ≤ 2' },
    ]);
    expect(errorsOf('openai/gpt-4o', { messages, tool_choice: 'sometimes', stop: 5 })).toEqual([
      { field: 'stop', message: 'must be a string or an array' },
      { field: 'tool_choice', message: 'must be one of: "auto", "none", "required"' },
    ]);
  });

  it('does not inject max_tokens into the body sent upstream', () => {
    expect(validated('anthropic/claude-haiku-4-5', { messages: [...messages] })).not.toHaveProperty(
      'max_tokens',
    );
  });

  it('refuses input larger than the context window', () => {
    const [err] = errorsOf('deepseek/deepseek-chat', {
      messages: [{ role: 'user', content: 'hello '.repeat(140_000) }],
    });
    expect(err?.field).toBe('messages');
    expect(err?.message).toMatch(/more than this model's context of 131072 tokens/);
  });

  it('refuses a request that would cost more than $60, naming the field that makes it dear', () => {
    // Llama 4 Maverick publishes no output cap: 100M tokens × $0.85/1M = $85
    expect(errorsOf('meta-llama/llama-4-maverick', { messages, max_tokens: 100_000_000 })).toEqual([
      {
        field: 'max_tokens',
        message: 'makes this call cost $85.00, above the $60.00 limit per call; ask for less',
      },
    ]);
  });
});

describe('tools', () => {
  it('checks ranges, item counts and total characters', () => {
    expect(errorsOf('tools/search', { q: 'x', count: 21 })).toEqual([
      { field: 'count', message: 'must be ≤ 20' },
    ]);
    expect(errorsOf('tools/embed', { texts: Array.from({ length: 101 }, () => 'x') })).toEqual([
      { field: 'texts', message: 'must have at most 100 items' },
    ]);
    expect(errorsOf('tools/embed', { texts: ['x'.repeat(20_000), 'y'.repeat(12_001)] })).toEqual([
      { field: 'texts', message: 'must total at most 32000 characters' },
    ]);
    expect(errorsOf('tools/embed', {})).toEqual([{ field: 'texts', message: 'send texts or text' }]);
    expect(errorsOf('tools/moderate', { text: 'x'.repeat(8001) })).toEqual([
      { field: 'text', message: 'must be at most 8000 characters' },
    ]);
  });

  it('checks enums, patterns and https URLs', () => {
    expect(errorsOf('tools/gas-price', { chain: 'solana' })[0]?.message).toBe(
      'must be one of: "ethereum", "base", "arbitrum", "optimism", "bsc", "polygon"',
    );
    expect(
      errorsOf('tools/perp-markets', {
        coins: Array.from({ length: 21 }, (_, i) => `C${i}`).join(','),
        limit: 51,
      }),
    ).toEqual([
      { field: 'coins', message: expect.stringMatching(/^has the wrong format/) },
      { field: 'limit', message: 'must be ≤ 50' },
    ]);
    expect(errorsOf('tools/screenshot', { url: 'http://example.com', width: 100 })).toEqual([
      { field: 'url', message: expect.stringMatching(/^has the wrong format/) },
      { field: 'width', message: 'must be ≥ 320' },
    ]);
    expect(errorsOf('tools/card', { preset: 'tiktok', title: 't', subtitle: 's', accent: 'red' })).toEqual([
      { field: 'accent', message: expect.stringMatching(/^has the wrong format/) },
      {
        field: 'preset',
        message: 'must be one of: "og", "instagram-square", "story", "linkedin", "podcast"',
      },
    ]);
    expect(errorsOf('tools/tweet-image', { text: 't', name: 'n', handle: '@kasir' })[0]?.field).toBe(
      'handle',
    );
  });

  it('applies tool defaults', () => {
    expect(validated('tools/perp-markets', {})).toMatchObject({ sort: 'volume', limit: 10 });
    expect(validated('tools/screenshot', { url: 'https://example.com' })).toMatchObject({
      width: 1280,
      height: 800,
      fullPage: false,
    });
  });

  it('checks nested image references (face-compare)', () => {
    expect(errorsOf('tools/face-compare', { a: { image_url: URL }, b: {} })).toEqual([
      { field: 'b.image_url', message: 'send image_url or image_base64' },
    ]);
  });
});

describe('an entry called with GET (a free lookup)', () => {
  it('coerces query strings to the schema types and applies its defaults', () => {
    expect(validated('tools/prayer-times', { lat: '-6.2', lng: '106.8' })).toEqual({
      lat: -6.2,
      lng: 106.8,
      days: 1,
      method: 'kemenag',
      madhab: 'shafi',
    });
  });

  it("reports a property's failures with its errorMessage, for any keyword or by keyword", () => {
    expect(errorsOf('tools/prayer-times', { days: '40', lat: 'x' })).toEqual([
      { field: 'days', message: 'must be an integer from 1 to 31' },
      { field: 'lat', message: 'must be a latitude from -90 to 90' },
    ]);
    expect(errorsOf('tools/qris', {})).toEqual([
      { field: 'payload', message: 'is required: the QRIS string' },
    ]);
    expect(errorsOf('tools/qris', { payload: 'x'.repeat(1025) })).toEqual([
      { field: 'payload', message: 'must be at most 1024 characters' },
    ]);
  });
});
