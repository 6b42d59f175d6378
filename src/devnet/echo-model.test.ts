// The devnet's echo model speaks the chat wire format: a model list, the same answer for the same messages, real
// token counts, a stream whose text adds up to the answer and ends with the usage chunk, and OpenAI-style errors.
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countTokens } from '../catalog/tokenizer.js';
import { ECHO_MODEL, type EchoModelServer, startEchoModel } from './echo-model.js';

describe('the devnet echo model', () => {
  let server: EchoModelServer;
  let client: OpenAI;
  beforeAll(async () => {
    server = await startEchoModel();
    client = new OpenAI({ baseURL: server.baseUrl, apiKey: 'devnet', maxRetries: 0 });
  });
  afterAll(() => server.stop());

  const messages = [{ role: 'user' as const, content: 'Hello from the devnet' }];

  it('lists itself to the OpenAI SDK', async () => {
    const models = await client.models.list();
    expect(models.data.map((m) => m.id)).toEqual([ECHO_MODEL]);
  });

  it('answers the same messages the same way, with the usage of what it read and wrote', async () => {
    const one = await client.chat.completions.create({ model: ECHO_MODEL, messages });
    const two = await client.chat.completions.create({ model: ECHO_MODEL, messages });
    expect(one.choices[0]?.message.content).toBe('Echo: Hello from the devnet');
    expect(two.choices[0]?.message.content).toBe(one.choices[0]?.message.content);
    expect(one.usage?.completion_tokens).toBe(countTokens('Echo: Hello from the devnet'));
    expect(one.usage?.prompt_tokens).toBeGreaterThan(0);
    const cut = await client.chat.completions.create({ model: ECHO_MODEL, messages, max_tokens: 2 });
    expect(cut.usage?.completion_tokens).toBe(2);
    expect(cut.choices[0]?.finish_reason).toBe('length');
  });

  it('streams the same answer token by token and ends with the usage when asked', async () => {
    const stream = await client.chat.completions.create({
      model: ECHO_MODEL,
      messages,
      stream: true,
      stream_options: { include_usage: true },
    });
    let text = '';
    let usage: OpenAI.CompletionUsage | null | undefined;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? '';
      if (chunk.usage) usage = chunk.usage;
    }
    expect(text).toBe('Echo: Hello from the devnet');
    expect(usage?.completion_tokens).toBe(countTokens(text));
  });

  it('refuses an unknown model (404) and missing messages (400) as OpenAI does', async () => {
    await expect(client.chat.completions.create({ model: 'gpt-9', messages })).rejects.toMatchObject({
      status: 404,
      code: 'model_not_found',
    });
    await expect(client.chat.completions.create({ model: ECHO_MODEL, messages: [] })).rejects.toMatchObject({
      status: 400,
      param: 'messages',
    });
  });
});
