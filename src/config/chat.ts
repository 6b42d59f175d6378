/**
 * Timeouts of chat upstream calls, per kind of wait: until a stream starts, between two stream events, and for a
 * whole non-streamed answer (which arrives only once the model has finished writing it).
 */
import { int, type SettingsArea } from './setting.js';

export const chatEnvShape = {
  /** Until a streamed answer's headers arrive; default UPSTREAM_TIMEOUT_MS. */
  CHAT_FIRST_BYTE_TIMEOUT_MS: int(100).optional(),
  /** The longest silence between two events of a streamed answer; default UPSTREAM_TIMEOUT_MS. */
  CHAT_STREAM_IDLE_TIMEOUT_MS: int(100).optional(),
  /** A whole non-streamed answer; 10 minutes, as the providers' official SDKs wait. */
  CHAT_CALL_TIMEOUT_MS: int(1000).default(600_000),
};

export interface ChatTimeouts {
  firstByteMs: number;
  idleMs: number;
  callMs: number;
}

export function parseChatTimeouts(e: Record<string, unknown>, upstreamTimeoutMs: number): ChatTimeouts {
  const or = (value: unknown, fallback: number) => (value === undefined ? fallback : Number(value));
  return {
    firstByteMs: or(e.CHAT_FIRST_BYTE_TIMEOUT_MS, upstreamTimeoutMs),
    idleMs: or(e.CHAT_STREAM_IDLE_TIMEOUT_MS, upstreamTimeoutMs),
    callMs: or(e.CHAT_CALL_TIMEOUT_MS, 600_000),
  };
}

export const chatSettings: SettingsArea = {
  name: 'chat',
  shape: chatEnvShape,
  rows: [
    {
      vars: ['CHAT_FIRST_BYTE_TIMEOUT_MS'],
      default: '`UPSTREAM_TIMEOUT_MS`',
      meaning: 'Chat: how long a streamed answer may take to start.',
    },
    {
      vars: ['CHAT_STREAM_IDLE_TIMEOUT_MS'],
      default: '`UPSTREAM_TIMEOUT_MS`',
      meaning: 'Chat: the longest silence between two events of a streamed answer.',
    },
    {
      vars: ['CHAT_CALL_TIMEOUT_MS'],
      default: '`600000`',
      meaning:
        "Chat: how long a whole non-streamed answer may take (10 minutes, as the providers' SDKs wait). A non-streamed Claude call whose `max_tokens` could take longer (Anthropic's estimate: 128,000 tokens an hour, so above 21,333 tokens at 10 minutes) is refused before payment with a message asking for `stream: true`.",
    },
  ],
};
