/**
 * Every paid route, with requests that are valid on it: the property suite (test/properties) sends them, mutated
 * and unmutated. A route that lands joins the suite with one line in PAID_ROUTES.
 */
import fc from 'fast-check';

/**
 * The installs every route is also fuzzed on (besides the one with every rail): the default install (no wallet
 * rail) and one rail at a time. A wallet route whose rail is off answers an unpaid call 503, and a key pays it.
 */
export const RAIL_CONFIGS = ['no wallet rail', 'x402 only', 'mpp only'] as const;
export type RailConfig = (typeof RAIL_CONFIGS)[number];

/** True when `path` is a wallet route (/x402/*, /a402/*, /b402/*) the config's x402 rail does not pay. */
export const walletRouteOff = (config: RailConfig, path: string): boolean =>
  /^\/(x402|a402|b402)\//.test(path) && !(config === 'x402 only' && path.startsWith('/x402/'));

export interface PaidRouteCase {
  /** The path requests are sent to. */
  path: string;
  /** Bodies the route must take (answer 200 and charge exactly their quote). */
  valid: fc.Arbitrary<Record<string, unknown>>;
  /**
   * How valid requests pay: with a funded key (the default), an x402 payment on a local EVM chain, or an MPP Tempo
   * charge on a local Tempo chain.
   */
  rail?: 'prepaid' | 'x402' | 'mpp';
  /** The request as the catalog quotes it, when the route names part of it in its path. Default: the body. */
  quoted?: (body: Record<string, unknown>) => Record<string, unknown>;
  /** Headers every request to the route carries (an MCP client's Accept). */
  headers?: Record<string, string>;
}

/** The Accept header of an MCP Streamable HTTP client. */
export const MCP_ACCEPT = { accept: 'application/json, text/event-stream' };

/**
 * A `tools/call` over MCP (JSON-RPC on POST /mcp) of the catalog entry `id`, named `name`: the arguments are the
 * entry's input, so the catalog quotes them. Paid with the key in `Authorization: Bearer` like any route.
 */
const mcpCall = (name: string, id: string, args: fc.Arbitrary<Record<string, unknown>>): PaidRouteCase => ({
  path: '/mcp',
  valid: fc.tuple(fc.integer({ min: 1, max: 1e6 }), args).map(([rpcId, a]) => ({
    jsonrpc: '2.0',
    id: rpcId,
    method: 'tools/call',
    params: { name, arguments: a },
  })),
  headers: MCP_ACCEPT,
  quoted: (body) => ({
    ...((body.params as { arguments?: Record<string, unknown> } | undefined)?.arguments ?? {}),
    model: id,
  }),
});

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

/** A paid tool's route: the catalog quotes it as `tools/<name>`. */
const tool = (name: string, valid: fc.Arbitrary<Record<string, unknown>>): PaidRouteCase => ({
  path: `/v1/tools/${name}`,
  valid,
  quoted: (body) => ({ ...body, model: `tools/${name}` }),
});

/** A 1×1 PNG, inline as the image tools take it (bare base64 or a data: URI). */
const PIXEL_PNG =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';
const inlineImage = fc.record({
  image_base64: fc.constantFrom(PIXEL_PNG, `data:image/png;base64,${PIXEL_PNG}`),
});

const CURRENCIES = ['USD', 'EUR', 'IDR', 'JPY', 'GBP', 'SGD', 'AUD', 'usd', 'idr'];

const EXCHANGE_RATE_BODY = fc.record(
  {
    from: fc.constantFrom(...CURRENCIES),
    to: fc
      .uniqueArray(fc.constantFrom(...CURRENCIES), { minLength: 1, maxLength: 4 })
      .map((c) => c.join(',')),
    amount: fc.double({ min: 0, max: 1e12, noNaN: true }),
  },
  { requiredKeys: [] },
);

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

/** A recipe (image then video on fal's queue) with the choices it takes. */
const recipeBody = fc.record(
  {
    prompt: text,
    duration: fc.constantFrom(5, 10),
    motionPrompt: text,
    imageModel: fc.constantFrom('black-forest-labs/flux-schnell@fal', 'google/nano-banana'),
  },
  { requiredKeys: ['prompt'] },
);

export const PAID_ROUTES: PaidRouteCase[] = [
  { path: '/v1/images/generations', valid: falImageBody },
  {
    path: '/v1/recipes/prompt-to-video',
    valid: recipeBody,
    quoted: (body) => ({ ...body, model: 'recipes/prompt-to-video' }),
  },
  { path: '/v1/infer', valid: falSpeechBody },
  tool('ocr-id', inlineImage),
  tool('product-listing', inlineImage),
  // A 1×1 image has no face: face-detect answers it (count 0) and charges.
  tool('face-detect', inlineImage),
  tool(
    'address-id',
    fc.record({
      address: fc.oneof(
        fc.constantFrom('Jl. Merdeka No. 10, RT 02/RW 03, Bandung', 'Slamet Riyadi 1, Solo, Jatim'),
        fc.string({ minLength: 1, maxLength: 300 }).filter((s) => s.trim() !== ''),
      ),
    }),
  ),

  // Two of the card renderers (the others share their pipeline; rendering costs about 0.2 s a call).
  tool('og-image', ogImageBody),
  tool('code-image', codeImageBody),
  { path: '/v1/chat/completions', valid: chatBody },
  { path: '/v1/chat/completions', valid: chatBody, rail: 'mpp' },
  {
    path: '/x402/openai/gpt-4.1-mini',
    valid: walletChatBody,
    rail: 'x402',
    quoted: (body) => ({ ...body, model: 'openai/gpt-4.1-mini' }),
  },
  tool('exchange-rate', EXCHANGE_RATE_BODY),
  mcpCall('tools__exchange-rate', 'tools/exchange-rate', EXCHANGE_RATE_BODY),
  {
    path: '/x402/tools/exchange-rate',
    valid: EXCHANGE_RATE_BODY,
    rail: 'x402',
    quoted: (body) => ({ ...body, model: 'tools/exchange-rate' }),
  },
  tool(
    'perp-markets',
    fc.record(
      {
        coins: fc
          .uniqueArray(fc.constantFrom('BTC', 'eth', 'SOL', 'kPEPE', 'NOPE'), { minLength: 1 })
          .map((c) => c.join(',')),
        sort: fc.constantFrom('volume', 'open_interest', 'funding', 'change'),
        limit: fc.integer({ min: 1, max: 50 }),
      },
      { requiredKeys: [] },
    ),
  ),
  tool(
    'defi-tvl',
    fc.oneof(
      fc.record(
        { protocol: fc.constantFrom('aave', 'AAVE'), chain: fc.constantFrom('ethereum', 'Base') },
        { requiredKeys: ['protocol'] },
      ),
      fc.record({ chain: fc.constantFrom('ethereum', 'Solana', 'BSC') }),
      fc.record({ limit: fc.integer({ min: 1, max: 100 }) }, { requiredKeys: [] }),
    ),
  ),
  tool(
    'dex-pairs',
    fc.record({
      query: fc.oneof(fc.constantFrom('PEPE', 'pepe', 'WETH'), fc.string({ minLength: 1, maxLength: 200 })),
    }),
  ),
  tool(
    'token-price',
    fc.oneof(
      fc.record(
        {
          symbols: fc
            .uniqueArray(fc.constantFrom('BTC', 'eth', 'SOL', 'bnb', 'POL'), { minLength: 1 })
            .map((s) => s.join(',')),
          vs: fc.constantFrom('usd', 'IDR', 'eur'),
        },
        { requiredKeys: ['symbols'] },
      ),
      fc.record({ ids: fc.constantFrom('bitcoin', 'ethereum,solana', 'binancecoin') }),
    ),
  ),
  tool(
    'gas-price',
    fc.record(
      {
        chain: fc.constantFrom('ethereum', 'base', 'arbitrum', 'optimism', 'bsc', 'polygon'),
        gasLimit: fc.integer({ min: 21000, max: 30_000_000 }),
      },
      { requiredKeys: ['chain'] },
    ),
  ),
  tool(
    'rpc',
    fc.record({
      chain: fc.constantFrom('ethereum', 'base', 'Polygon', 'solana'),
      method: fc.constantFrom('eth_blockNumber', 'eth_chainId', 'eth_gasPrice', 'getSlot'),
      params: fc.constant([]),
    }),
  ),
  tool(
    'search',
    fc.record(
      {
        q: fc.string({ minLength: 1, maxLength: 400 }),
        count: fc.integer({ min: 1, max: 20 }),
        country: fc.constantFrom('ID', 'us', 'SG'),
        lang: fc.constantFrom('id', 'en', 'en-US'),
      },
      { requiredKeys: ['q'] },
    ),
  ),
  tool(
    'embed',
    fc.oneof(
      fc.record({
        texts: fc.array(fc.string({ minLength: 1, maxLength: 300 }), { minLength: 1, maxLength: 100 }),
      }),
      fc.record({ text: text }),
    ),
  ),
  tool('moderate', fc.record({ text: fc.string({ minLength: 1, maxLength: 8000 }) })),
  tool(
    'stock-filings',
    fc.record(
      {
        ticker: fc.constantFrom('AAPL', 'aapl'),
        form: fc.constantFrom('10-K', '10-q', '8-K', '4', 'S-1'),
        limit: fc.integer({ min: 1, max: 100 }),
      },
      { requiredKeys: ['ticker'] },
    ),
  ),
  tool(
    'stock-fundamentals',
    fc.record(
      {
        ticker: fc.constantFrom('AAPL', 'aapl', 'NOXB'),
        limit: fc.integer({ min: 1, max: 100 }),
      },
      { requiredKeys: ['ticker'] },
    ),
  ),
  tool(
    'domain-lookup',
    fc.record(
      {
        domain: fc.constantFrom(
          'example.com',
          'https://www.example.com/a?b=c',
          'EXAMPLE.COM.',
          'nothing-here.org',
          'example.net',
        ),
        records: fc.uniqueArray(fc.constantFrom('A', 'AAAA', 'MX', 'NS', 'TXT', 'CNAME', 'CAA'), {
          minLength: 1,
        }),
      },
      { requiredKeys: ['domain'] },
    ),
  ),
  tool(
    'market-brief',
    fc.record(
      {
        chain: fc.constantFrom('ethereum', 'base', 'BSC', 'polygon'),
        symbols: fc
          .uniqueArray(fc.constantFrom('BTC', 'eth', 'SOL', 'NOPE'), { minLength: 1 })
          .map((s) => s.join(',')),
        protocol: fc.constantFrom('aave', 'unknown-protocol'),
      },
      { requiredKeys: [] },
    ),
  ),
];
