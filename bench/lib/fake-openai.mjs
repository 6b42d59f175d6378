// A fast fake OpenAI-compatible upstream for benchmarks: answers at once, or streams `BENCH_EVENTS` chunks
// `BENCH_EVENT_DELAY_MS` apart when the request asks for a stream (with the usage-only final chunk).
import http from 'node:http';

const events = Number(process.env.BENCH_EVENTS ?? 10);
const delayMs = Number(process.env.BENCH_EVENT_DELAY_MS ?? 0);
const usage = { prompt_tokens: 12, completion_tokens: 10, total_tokens: 22 };
const completion = JSON.stringify({
  id: 'chatcmpl-bench',
  object: 'chat.completion',
  created: 1_700_000_000,
  model: 'gpt-4.1-mini',
  choices: [
    {
      index: 0,
      message: { role: 'assistant', content: 'Hello! How can I help you today?' },
      finish_reason: 'stop',
    },
  ],
  usage,
});
const chunk = (delta, finish = null) =>
  `data: ${JSON.stringify({ id: 'chatcmpl-bench', object: 'chat.completion.chunk', created: 1_700_000_000, model: 'gpt-4.1-mini', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

const server = http.createServer((req, res) => {
  const parts = [];
  req.on('data', (c) => parts.push(c));
  req.on('end', async () => {
    const body = JSON.parse(Buffer.concat(parts).toString('utf8') || '{}');
    if (!body.stream) {
      res.writeHead(200, {
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(completion),
      });
      res.end(completion);
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write(chunk({ role: 'assistant', content: '' }));
    for (let i = 0; i < events; i++) {
      if (delayMs) await sleep(delayMs);
      res.write(chunk({ content: `word${i} ` }));
    }
    res.write(chunk({}, 'stop'));
    if (body.stream_options?.include_usage) {
      res.write(
        `data: ${JSON.stringify({ id: 'chatcmpl-bench', object: 'chat.completion.chunk', created: 1_700_000_000, model: 'gpt-4.1-mini', choices: [], usage })}\n\n`,
      );
    }
    res.end('data: [DONE]\n\n');
  });
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () =>
  console.error(`fake openai listening on http://127.0.0.1:${server.address().port}`),
);
