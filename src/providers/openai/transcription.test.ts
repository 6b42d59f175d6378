// A streamed transcription's server-sent events (OpenAI's transcript.text.delta / transcript.text.done) read into
// the body a whole answer has: the real text and usage, never the raw `data:` lines.
import { describe, expect, it } from 'vitest';
import { openAiTranscription, streamedTranscription } from './response.js';

const sse = (...events: unknown[]) => events.map((e) => `data: ${JSON.stringify(e)}\n\n`).join('');

describe('streamed transcriptions', () => {
  it('answers the done event’s text and usage', () => {
    const usage = { type: 'tokens', input_tokens: 14, output_tokens: 45, total_tokens: 59 };
    const body = sse(
      { type: 'transcript.text.delta', delta: 'Selamat ' },
      { type: 'transcript.text.delta', delta: 'pagi' },
      { type: 'transcript.text.done', text: 'Selamat pagi', usage },
    );
    const out = openAiTranscription({ contentType: 'text/event-stream', bytes: Buffer.from(body) });
    expect(out).toEqual({ kind: 'data', body: { text: 'Selamat pagi', usage } });
  });

  it('joins the deltas when no done event came, and refuses a stream without text', () => {
    expect(streamedTranscription(sse({ type: 'transcript.text.delta', delta: 'halo' }))).toEqual({
      text: 'halo',
    });
    expect(() => streamedTranscription('data: [DONE]\n\n')).toThrow(/without any text/);
  });
});
