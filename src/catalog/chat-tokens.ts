/** Estimates the tokens a chat request can bill: its input with a real tokenizer, its output at the ceiling the caller set. */
import { countedLately, countTokens, countTokensPatiently, type TokenCounter } from './tokenizer.js';

/** Output ceiling when the caller sends neither max_tokens nor max_completion_tokens. */
export const DEFAULT_MAX_TOKENS = 1024;
/** Wrapping tokens each message costs on top of its text (role, separators), as in the common chat formats. */
export const TOKENS_PER_MESSAGE = 4;
/** Tokens that prime the assistant's reply. */
export const REPLY_PRIMING_TOKENS = 3;
/**
 * A fixed ceiling per image part, whatever its size: the largest images the chat upstreams accept at default
 * resolution cost about 1,600 tokens (Anthropic: width × height / 750 at ≤ 1.15 MP; OpenAI high detail ≤ 1,105).
 */
export const TOKENS_PER_IMAGE = 1600;

/**
 * The last body counted, and its count: validation counts a body for the context-window check and again for its
 * price, one right after the other, so only the latest body is ever asked about again: one slot is enough, where
 * a WeakMap would keep an entry per call for the garbage collector to clear.
 */
let lastCounted: { input: object; tokens: number } | undefined;

/** Counts of long inputs made ahead by precountInputTokens, held by the input object they belong to. */
const precounted = new WeakMap<object, number>();

/** Text above this many characters is counted ahead, a slice at a time (see precountInputTokens). */
export const PRECOUNT_ABOVE_CHARS = 16 * 1024;

function countText(value: unknown, counter: TokenCounter): number {
  return typeof value === 'string' && value.length > 0 ? counter(value) : 0;
}

function countJson(value: unknown, counter: TokenCounter): number {
  return value === undefined || value === null ? 0 : counter(JSON.stringify(value));
}

function countContent(content: unknown, counter: TokenCounter): number {
  if (typeof content === 'string') return countText(content, counter);
  if (!Array.isArray(content)) return 0;
  let tokens = 0;
  for (const part of content) {
    if (!part || typeof part !== 'object') continue;
    const p = part as Record<string, unknown>;
    if (p.type === 'image_url') tokens += TOKENS_PER_IMAGE;
    else if (p.type === 'text') tokens += countText(p.text, counter);
    else tokens += countJson(p, counter);
  }
  return tokens;
}

/**
 * Input tokens of a chat body: every message's text (o200k encoding), a fixed ceiling per image, tool calls and
 * the tool definitions as JSON, a top-level `system`, a JSON response schema, plus per-message wrapping.
 * Other upstreams' tokenizers differ by a few percent; the output ceiling dominates most quotes.
 * `counter` is the tokenizer unless a caller wants a bound (see `tokenCeiling`); only real counts are cached.
 */
export function estimateInputTokens(
  input: Record<string, unknown>,
  counter: TokenCounter = countTokens,
): number {
  const exact = counter === countTokens;
  if (exact) {
    if (lastCounted?.input === input) return lastCounted.tokens;
    const ahead = precounted.get(input);
    if (ahead !== undefined) return ahead;
  }
  let tokens = REPLY_PRIMING_TOKENS;
  const messages = Array.isArray(input.messages) ? input.messages : [];
  for (const message of messages) {
    if (!message || typeof message !== 'object') continue;
    const m = message as Record<string, unknown>;
    tokens += TOKENS_PER_MESSAGE + countContent(m.content, counter) + countText(m.name, counter);
    tokens += countJson(m.tool_calls, counter) + countText(m.tool_call_id, counter);
  }
  tokens += countText(input.system, counter) + countJson(input.tools, counter);
  const format = input.response_format as Record<string, unknown> | undefined;
  if (format && typeof format === 'object' && format.type === 'json_schema')
    tokens += countJson(format, counter);
  if (exact) lastCounted = { input, tokens };
  return tokens;
}

/**
 * Counts a long chat input's tokens ahead of its validation, without holding the event loop (see
 * countTokensPatiently), so that estimateInputTokens then answers at once; undefined when its text is short
 * enough to count on the spot. Counting stops once it passes `cap` (the model's context): such a request is refused
 * whatever the rest would add, and the count it states (a lower bound) already exceeds the context.
 */
export function precountInputTokens(
  input: Record<string, unknown>,
  cap = Number.POSITIVE_INFINITY,
): Promise<void> | undefined {
  const texts: string[] = [];
  let chars = 0;
  // Texts counted lately (earlier turns of a conversation, a system prompt) are looked up, not counted again.
  const wrapping = estimateInputTokens(input, (text) => {
    const known = countedLately(text);
    if (known !== undefined) return known;
    texts.push(text);
    chars += text.length;
    return 0;
  });
  if (chars <= PRECOUNT_ABOVE_CHARS) return undefined;
  return countTokensPatiently(texts, cap - wrapping).then(({ tokens }) => {
    precounted.set(input, wrapping + tokens);
  });
}

/** Completions a request asks for (`n`, default 1). */
export function choices(input: Record<string, unknown>): number {
  return typeof input.n === 'number' && Number.isInteger(input.n) && input.n > 0 ? input.n : 1;
}

/**
 * The output tokens a request can bill per completion: `max_tokens` or `max_completion_tokens` (the larger when both
 * are sent), else 1024. Adapters use the same number when an upstream requires max_tokens.
 */
export function outputTokenCeiling(input: Record<string, unknown>): number {
  const values = [input.max_tokens, input.max_completion_tokens].filter(
    (v): v is number => typeof v === 'number' && Number.isInteger(v) && v > 0,
  );
  return values.length ? Math.max(...values) : DEFAULT_MAX_TOKENS;
}
