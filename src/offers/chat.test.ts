// upstreamBody: the chat body sent upstream states the quoted output ceiling in the field the model reads.
import { describe, expect, it } from 'vitest';
import type { ModelEntry } from '../catalog/types.js';
import { upstreamBody } from './chat.js';

const model = (outputLimitField?: 'max_tokens' | 'max_completion_tokens') =>
  ({
    id: 'x/y',
    chat: { contextLength: null, maxOutputTokens: null, vision: false, tools: false, outputLimitField },
  }) as unknown as ModelEntry;

describe('upstreamBody', () => {
  const messages = [{ role: 'user', content: 'hi' }];

  it('states the quoted output ceiling explicitly, 1024 when the caller gave none', () => {
    expect(upstreamBody(model(), { model: 'x/y', messages })).toEqual({
      model: 'x/y',
      messages,
      max_tokens: 1024,
    });
    expect(upstreamBody(model(), { messages, max_tokens: 77 })).toEqual({ messages, max_tokens: 77 });
  });

  it('uses the larger of max_tokens and max_completion_tokens, in the field the model reads', () => {
    expect(upstreamBody(model(), { messages, max_tokens: 10, max_completion_tokens: 300 })).toEqual({
      messages,
      max_tokens: 300,
    });
    expect(upstreamBody(model('max_completion_tokens'), { messages, max_tokens: 500 })).toEqual({
      messages,
      max_completion_tokens: 500,
    });
  });
});
