// chatOutputMeter: the output of a chat call counted per choice, from the upstream's usage or, for a stream
// cut short, from what was delivered.
import { describe, expect, it } from 'vitest';
import { estimateInputTokens } from '../catalog/chat-tokens.js';
import { countTokens } from '../catalog/tokenizer.js';
import type { ChatStreamEvent } from '../providers/types.js';
import { chatOutputMeter } from './chat-meter.js';

const input = { model: 'openai/gpt-4.1', messages: [{ role: 'user', content: 'Count to three' }] };
const chunk = (choices: unknown[], extra: Record<string, unknown> = {}) =>
  `data: ${JSON.stringify({ id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1700000000, choices, ...extra })}\n\n`;

describe('chatOutputMeter', () => {
  it("counts every choice's content, reasoning and tool-call arguments, several frames to a read", () => {
    const meter = chatOutputMeter('openai/gpt-4.1', input);
    const read = Buffer.from(
      chunk([{ index: 0, delta: { role: 'assistant', content: '' } }]) +
        chunk([{ index: 0, delta: { content: 'One, two' } }]) +
        chunk([{ index: 1, delta: { reasoning_content: 'thinking it over' } }]) +
        chunk([{ index: 0, delta: { tool_calls: [{ index: 0, function: { arguments: '{"n":3}' } }] } }]),
    );
    expect(meter.tokensIn(read)).toBe(
      countTokens('One, two') + countTokens('thinking it over') + countTokens('{"n":3}'),
    );
    // The finish chunk, the usage chunk and the terminator carry no output.
    const tail = chunk([{ index: 0, delta: {}, finish_reason: 'stop' }]) + chunk([], { usage: {} });
    expect(meter.tokensIn(Buffer.from(`${tail}data: [DONE]\n\n`))).toBe(0);
  });

  it('reads the output the upstream reported at the end', () => {
    const meter = chatOutputMeter('openai/gpt-4.1', input);
    const end: ChatStreamEvent = {
      type: 'end',
      usage: { prompt_tokens: 9, completion_tokens: 42, total_tokens: 51 },
      id: 'chatcmpl-1',
      model: 'gpt-4.1',
      created: 1700000000,
    };
    expect(meter.reported(end)).toBe(42);
  });

  it('closes a stream cut short: every choice seen finishes at its length, usage states what was delivered', () => {
    const meter = chatOutputMeter('openai/gpt-4.1', input);
    meter.tokensIn(
      Buffer.from(
        chunk([
          { index: 0, delta: { content: 'a' } },
          { index: 1, delta: { content: 'b' } },
        ]),
      ),
    );
    const cut = meter.cutShort(7);
    const finish = JSON.parse(cut.frames.toString().slice(6));
    expect(finish).toMatchObject({
      id: 'chatcmpl-1',
      created: 1700000000,
      model: 'openai/gpt-4.1',
      choices: [
        { index: 0, delta: {}, finish_reason: 'length' },
        { index: 1, delta: {}, finish_reason: 'length' },
      ],
    });
    const prompt = estimateInputTokens(input);
    expect(cut.end).toMatchObject({
      type: 'end',
      id: 'chatcmpl-1',
      usage: { prompt_tokens: prompt, completion_tokens: 7, total_tokens: prompt + 7 },
    });
  });
});
