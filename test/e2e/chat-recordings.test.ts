// Recorded exchanges of the real Anthropic and xAI APIs (test/fakes/fixtures/recordings, sources in NOTICE)
// replayed through kasir's public HTTP API: the answer, the tool calls, the signed reasoning handed back on the
// next turn, the usage in one semantics, and the money (header = costMicroUsd = quote = balance taken).
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { loadRecording, type RecordingServer, startRecordingServer } from '../fakes/recording-server.js';
import { postJson } from '../support/app.js';
import { bearer, type PaidKasir, startPaidKasir } from '../support/paid.js';

const XAI_KEY = 'xai-fake-key';

interface Chunk {
  choices: Array<{ delta: Record<string, unknown> & { content?: string } }>;
  usage?: Record<string, unknown>;
  costMicroUsd?: number;
}

describe('recorded real API exchanges replayed through kasir', () => {
  let anthropic: RecordingServer;
  let xai: RecordingServer;
  let kasir: PaidKasir;
  beforeAll(async () => {
    anthropic = await startRecordingServer();
    xai = await startRecordingServer();
    kasir = await startPaidKasir('sqlite', {
      ANTHROPIC_BASE_URL: anthropic.url,
      XAI_API_KEY: XAI_KEY,
      XAI_BASE_URL: `${xai.url}/v1`,
    });
  });
  afterAll(async () => {
    await kasir.stop();
    await anthropic.close();
    await xai.close();
  });
  beforeEach(() => {
    anthropic.requests.length = 0;
    xai.requests.length = 0;
  });

  /** Posts a paid call and checks the money: header = costMicroUsd = quote = what the balance lost. */
  async function paidCall(body: Record<string, unknown>) {
    const { accountId, key } = await kasir.fundedKey(5_000_000);
    const res = await postJson(kasir, '/v1/chat/completions', body, bearer(key));
    const text = await res.text();
    expect(res.status, text).toBe(200);
    const charged = Number(res.headers.get('x-service-charged-micro-usd'));
    expect(charged).toBe(kasir.quote(body));
    expect(await kasir.balance(accountId)).toEqual({ balance: 5_000_000 - charged, held: 0 });
    return { text, charged };
  }

  it('Claude thinking with tools: two turns, the signed thinking block handed back verbatim, answered 200', async () => {
    const recording = loadRecording('anthropic-thinking-tool-loop');
    anthropic.replay(recording.interactions);
    const recorded = recording.interactions.map((i) => i.request.body as { messages: unknown[] });
    const tools = [
      {
        type: 'function',
        function: {
          name: 'get_user_country',
          description: '',
          parameters: { additionalProperties: false, properties: {}, type: 'object' },
        },
      },
    ];
    const question = { role: 'user', content: 'What is the largest city in the user country?' };
    const turn = {
      model: 'anthropic/claude-sonnet-4-5',
      max_tokens: 4096,
      reasoning_effort: 'medium',
      tools,
    };

    const first = await paidCall({ ...turn, messages: [question] });
    const answer = JSON.parse(first.text) as {
      choices: Array<{ message: Record<string, unknown>; finish_reason: string }>;
      usage: Record<string, unknown>;
      costMicroUsd: number;
    };
    expect(answer.costMicroUsd).toBe(first.charged);
    expect(answer.usage).toMatchObject({ prompt_tokens: 398, completion_tokens: 155, total_tokens: 553 });
    const message = answer.choices[0]?.message as Record<string, unknown>;
    expect(answer.choices[0]?.finish_reason).toBe('tool_calls');
    expect(message.tool_calls).toEqual([
      {
        id: 'toolu_01YGzqpRE16Vricda3Aqcejo',
        type: 'function',
        function: { name: 'get_user_country', arguments: '{}' },
      },
    ]);
    const recordedThinking = ((recorded[1]?.messages ?? [])[1] as { content: Array<Record<string, unknown>> })
      .content[0];
    expect(message.reasoning_details).toEqual([
      {
        type: 'reasoning.text',
        text: recordedThinking?.thinking,
        signature: recordedThinking?.signature,
        format: 'anthropic-claude-v1',
        index: 0,
      },
    ]);
    expect(anthropic.requests[0]?.body).toMatchObject({ thinking: { type: 'enabled', budget_tokens: 2048 } });

    const second = await paidCall({
      ...turn,
      messages: [
        question,
        message,
        { role: 'tool', tool_call_id: 'toolu_01YGzqpRE16Vricda3Aqcejo', content: 'Mexico' },
      ],
    });
    const final = JSON.parse(second.text) as {
      choices: Array<{ message: { content: string } }>;
      usage: unknown;
    };
    expect(final.choices[0]?.message.content).toContain('Mexico City');
    expect(final.usage).toMatchObject({ prompt_tokens: 566, completion_tokens: 126 });
    // The assistant turn kasir sent is the one the real client sent: thinking (with its signature), text, tool_use.
    const sent = anthropic.requests[1]?.body.messages as unknown[];
    expect(sent[1]).toEqual(recorded[1]?.messages[1]);
    expect(anthropic.requests[1]?.body.thinking).toEqual({ type: 'enabled', budget_tokens: 2048 });
  });

  it('Claude redacted thinking: handed out as reasoning.encrypted and back as the same redacted_thinking block', async () => {
    const recording = loadRecording('anthropic-redacted-thinking');
    anthropic.replay(recording.interactions);
    const recorded = recording.interactions.map(
      (i) => i.request.body as { messages: Array<Record<string, unknown>> },
    );
    const prompt = ((recorded[0]?.messages[0]?.content ?? []) as Array<{ text: string }>)[0]?.text as string;
    const turn = { model: 'anthropic/claude-sonnet-4-5', max_tokens: 4096, reasoning_effort: 'low' };
    const first = await paidCall({ ...turn, messages: [{ role: 'user', content: prompt }] });
    const message = (JSON.parse(first.text) as { choices: Array<{ message: Record<string, unknown> }> })
      .choices[0]?.message as Record<string, unknown>;
    const redacted = ((recorded[1]?.messages[1]?.content ?? []) as Array<Record<string, unknown>>)[0];
    expect(message.reasoning_details).toEqual([
      { type: 'reasoning.encrypted', data: redacted?.data, format: 'anthropic-claude-v1', index: 0 },
    ]);
    const followUp = recorded[1]?.messages[2] as { content: Array<{ text: string }> };
    await paidCall({
      ...turn,
      messages: [
        { role: 'user', content: prompt },
        message,
        { role: 'user', content: followUp.content[0]?.text },
      ],
    });
    expect(((anthropic.requests[1]?.body.messages ?? []) as unknown[])[1]).toMatchObject({
      role: 'assistant',
      content: [redacted, expect.objectContaining({ type: 'text' })],
    });
  });

  it('Claude streamed thinking: text, reasoning_details with the signature, usage and cost in the final chunk', async () => {
    const recording = loadRecording('anthropic-thinking-stream');
    anthropic.replay(recording.interactions);
    const recordedText = recording.interactions[0]?.response.text as string;
    const body = {
      model: 'anthropic/claude-sonnet-4-5',
      max_tokens: 4096,
      reasoning_effort: 'low',
      stream: true,
      messages: [{ role: 'user', content: 'How do I cross the street?' }],
    };
    const { text, charged } = await paidCall(body);
    const chunks = text
      .split('\n\n')
      .filter((f) => f.startsWith('data: {'))
      .map((f) => JSON.parse(f.slice(6)) as Chunk);
    const deltas = chunks.flatMap((c) => c.choices.map((choice) => choice.delta));
    const recordedDeltas = [...recordedText.matchAll(/^data: (\{.*\})\s*$/gm)].map(
      (m) =>
        JSON.parse(m[1] as string) as {
          delta?: { type?: string; text?: string; thinking?: string; signature?: string };
        },
    );
    const recordedOf = (type: string, key: 'text' | 'thinking' | 'signature') =>
      recordedDeltas
        .filter((e) => e.delta?.type === type)
        .map((e) => e.delta?.[key])
        .join('');
    expect(deltas.map((d) => d.content ?? '').join('')).toBe(recordedOf('text_delta', 'text'));
    const pieces = deltas.flatMap(
      (d) => (d.reasoning_details as Array<Record<string, string>> | undefined) ?? [],
    );
    expect(pieces.map((p) => p.text ?? '').join('')).toBe(recordedOf('thinking_delta', 'thinking'));
    expect(pieces.find((p) => p.signature)?.signature).toBe(recordedOf('signature_delta', 'signature'));
    const last = chunks.at(-1) as Chunk;
    expect(last.usage).toMatchObject({ prompt_tokens: 43, completion_tokens: 282, total_tokens: 325 });
    expect(last.costMicroUsd).toBe(charged);
    expect(text.trimEnd().endsWith('data: [DONE]')).toBe(true);
  });

  it('xAI grok-4: reasoning counted apart by xAI is reported inside completion_tokens', async () => {
    const recording = loadRecording('xai-grok-4-reasoning');
    xai.replay(recording.interactions);
    const body = {
      ...(recording.interactions[0]?.request.body as Record<string, unknown>),
      model: 'xai/grok-4',
    };
    const { text, charged } = await paidCall(body);
    const answer = JSON.parse(text) as {
      choices: Array<{ message: { content: string } }>;
      usage: unknown;
      costMicroUsd: number;
    };
    expect(answer.choices[0]?.message.content).toBe('hi  \nhello world');
    expect(answer.usage).toMatchObject({
      prompt_tokens: 703,
      completion_tokens: 254,
      total_tokens: 957,
      completion_tokens_details: { reasoning_tokens: 250 },
    });
    expect(answer.costMicroUsd).toBe(charged);
    expect(xai.requests[0]?.headers.authorization).toBe(`Bearer ${XAI_KEY}`);
    expect(xai.requests[0]?.path).toBe('/v1/chat/completions');
  });
});
