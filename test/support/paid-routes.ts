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

/** Media models on fal's queue (a local fake): an image model on its capability route, speech through /v1/infer. */
const falImageBody = fc.record(
  {
    model: fc.constant('black-forest-labs/flux-schnell@fal'),
    prompt: text,
    num_images: fc.integer({ min: 1, max: 4 }),
    seed: fc.integer({ min: 0, max: 4294967295 }),
    output_format: fc.constantFrom('jpeg', 'png'),
  },
  { requiredKeys: ['model', 'prompt'] },
);

const falSpeechBody = fc.record(
  {
    model: fc.constant('minimax/speech-02-turbo'),
    text: fc.string({ minLength: 1, maxLength: 300 }).filter((t) => t.trim() !== ''),
    language_boost: fc.constantFrom('English', 'Indonesian', 'auto'),
  },
  { requiredKeys: ['model', 'text'] },
);

export const PAID_ROUTES: PaidRouteCase[] = [
  { path: '/v1/images/generations', valid: falImageBody },
  { path: '/v1/infer', valid: falSpeechBody },
  { path: '/v1/chat/completions', valid: chatBody },
  {
    path: '/x402/openai/gpt-4.1-mini',
    valid: walletChatBody,
    rail: 'x402',
    quoted: (body) => ({ ...body, model: 'openai/gpt-4.1-mini' }),
  },
];
