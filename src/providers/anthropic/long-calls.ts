/**
 * Which non-streamed Claude calls cannot finish in time. Anthropic's own SDK refuses a non-streamed call whose
 * `max_tokens` could take longer than 10 minutes to write, estimating the time from `max_tokens` at 128,000
 * output tokens an hour; kasir uses the same estimate against its own wait for a whole answer
 * (CHAT_CALL_TIMEOUT_MS), and refuses such calls before payment, asking for `stream: true`.
 */

/** The SDK's estimate of output speed: 128,000 tokens in an hour. */
const TOKENS_PER_HOUR = 128_000;

/** The longest a non-streamed answer of `maxTokens` output tokens is expected to take, in ms. */
export function expectedAnswerMs(maxTokens: number): number {
  return Math.ceil((maxTokens * 3_600_000) / TOKENS_PER_HOUR);
}

/** The largest `max_tokens` a non-streamed call may ask for when kasir waits `callMs` for the answer. */
export function maxNonStreamedTokens(callMs: number): number {
  return Math.floor((callMs * TOKENS_PER_HOUR) / 3_600_000);
}
