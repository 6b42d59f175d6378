/**
 * Every paid route, with requests that are valid on it: the property suite (test/properties) sends them, mutated
 * and unmutated. A route that lands joins the suite with one line in PAID_ROUTES.
 */
import fc from 'fast-check';

export interface PaidRouteCase {
  /** The path requests are sent to. */
  path: string;
  /** Bodies the route must take (answer 200 and charge exactly their quote). */
  valid: fc.Arbitrary<Record<string, unknown>>;
  /** How valid requests pay: with a funded key (the default), or an x402 payment on a local EVM chain. */
  rail?: 'prepaid' | 'x402';
  /** The request as the catalog quotes it, when the route names part of it in its path. Default: the body. */
  quoted?: (body: Record<string, unknown>) => Record<string, unknown>;
}

/** Chat models on each of the three upstream wire formats (all served by local fakes). */
const CHAT_MODELS = ['openai/gpt-4.1-mini', 'anthropic/claude-haiku-4-5', 'google/gemini-2.5-flash'];

const text = fc.oneof(
  fc.string({ minLength: 1, maxLength: 200 }),
  fc.string({ unit: 'grapheme', minLength: 1, maxLength: 120 }),
  fc.constantFrom('Hello', 'Selamat pagi', '日本語のテキスト', '<|endoftext|>', 'a'.repeat(500)),
);

const chatMessage = fc.record({
  role: fc.constantFrom('user', 'system', 'assistant'),
  content: text,
});

const chatBody = fc.record(
  {
    model: fc.constantFrom(...CHAT_MODELS),
    messages: fc
      .array(chatMessage, { minLength: 1, maxLength: 4 })
      .map((m) => [...m, { role: 'user', content: 'hi' }]),
    max_tokens: fc.integer({ min: 1, max: 512 }),
    temperature: fc.double({ min: 0, max: 2, noNaN: true }),
    top_p: fc.double({ min: 0, max: 1, noNaN: true }),
    stream: fc.boolean(),
    seed: fc.integer(),
  },
  { requiredKeys: ['model', 'messages'] },
);

/** A wallet route's chat body: the model is in the path, and the answer is one JSON object (no stream). */
const walletChatBody = chatBody.map(({ model: _model, stream: _stream, ...rest }) => rest);

/** Short printable text with Indonesian and non-Latin letters, within the card renderers' length limits. */
const cardText = (maxLength: number) =>
  fc.oneof(
    fc.string({ minLength: 1, maxLength }),
    fc.constantFrom('Selamat pagi', 'Diskon 50% — hari ini', '日本語', 'x'.repeat(Math.min(maxLength, 120))),
  );

const ogImageBody = fc.record(
  { title: cardText(200), subtitle: cardText(300), theme: fc.constantFrom('light', 'dark', 'LIGHT') },
  { requiredKeys: ['title', 'subtitle'] },
);

const codeImageBody = fc.record(
  {
    code: fc.oneof(fc.string({ minLength: 1, maxLength: 400 }), fc.constant('const a = 1;\n\tif (a) {}\n')),
    title: fc.constantFrom('main.ts', 'app.py', 'README', 'x.unknownext'),
    language: fc.constantFrom('typescript', 'python', 'go', 'text'),
  },
  { requiredKeys: ['code', 'title'] },
);

/** A tool route's quote: the catalog entry is named by the path. */
const toolQuoted = (tool: string) => (body: Record<string, unknown>) => ({ ...body, model: `tools/${tool}` });

export const PAID_ROUTES: PaidRouteCase[] = [
  // Two of the card renderers (the others share their pipeline; rendering costs about 0.2 s a call).
  { path: '/v1/tools/og-image', valid: ogImageBody, quoted: toolQuoted('og-image') },
  { path: '/v1/tools/code-image', valid: codeImageBody, quoted: toolQuoted('code-image') },
  { path: '/v1/chat/completions', valid: chatBody },
  {
    path: '/x402/openai/gpt-4.1-mini',
    valid: walletChatBody,
    rail: 'x402',
    quoted: (body) => ({ ...body, model: 'openai/gpt-4.1-mini' }),
  },
];
