/**
 * Which non-streamed Claude calls cannot finish in time. Anthropic's own SDK (@anthropic-ai/sdk,
 * `calculateNonstreamingTimeout` in client.js) refuses a non-streamed call whose `max_tokens` could take longer
 * than 10 minutes to write, estimating the time at 128,000 output tokens an hour, and caps Claude Opus 4 and 4.1
 * at 8,192 tokens (`MODEL_NONSTREAMING_TOKENS` in internal/constants.js). kasir uses the same estimate against its
 * own wait for a whole answer (CHAT_CALL_TIMEOUT_MS), and the same caps, and refuses such calls before payment,
 * asking for `stream: true`.
 */

/** The SDK's estimate of output speed: 128,000 tokens in an hour. */
const TOKENS_PER_HOUR = 128_000;

/** Models the SDK never lets run a non-streamed call above 8,192 tokens (their ids with or without a date). */
const SLOW_MODELS = /^claude-(opus-4-0|opus-4-1|opus-4-2025|4-opus)/;
const SLOW_MODEL_MAX_TOKENS = 8_192;

/** The longest a non-streamed answer of `maxTokens` output tokens is expected to take, in ms. */
export function expectedAnswerMs(maxTokens: number): number {
  return Math.ceil((maxTokens * 3_600_000) / TOKENS_PER_HOUR);
}

/** The largest `max_tokens` a non-streamed call to `model` may ask for when kasir waits `callMs` for the answer. */
export function maxNonStreamedTokens(callMs: number, model = ''): number {
  const byTime = Math.floor((callMs * TOKENS_PER_HOUR) / 3_600_000);
  return SLOW_MODELS.test(model) ? Math.min(byTime, SLOW_MODEL_MAX_TOKENS) : byTime;
}
