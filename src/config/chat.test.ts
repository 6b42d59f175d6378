// The chat timeout settings: defaults, overrides and refusals.
import { describe, expect, it } from 'vitest';
import { loadConfig } from './load.js';

describe('chat timeouts', () => {
  it('wait 10 minutes for a whole non-streamed answer, and UPSTREAM_TIMEOUT_MS to start and between events', () => {
    expect(loadConfig({}).chatTimeouts).toEqual({ firstByteMs: 120_000, idleMs: 120_000, callMs: 600_000 });
    expect(loadConfig({ UPSTREAM_TIMEOUT_MS: '30000' }).chatTimeouts).toEqual({
      firstByteMs: 30_000,
      idleMs: 30_000,
      callMs: 600_000,
    });
  });

  it('take each wait from its own setting', () => {
    const config = loadConfig({
      CHAT_FIRST_BYTE_TIMEOUT_MS: '20000',
      CHAT_STREAM_IDLE_TIMEOUT_MS: '90000',
      CHAT_CALL_TIMEOUT_MS: '900000',
    });
    expect(config.chatTimeouts).toEqual({ firstByteMs: 20_000, idleMs: 90_000, callMs: 900_000 });
  });

  it('refuse a value below the floor, naming the setting', () => {
    expect(() => loadConfig({ CHAT_CALL_TIMEOUT_MS: '10' })).toThrow(/CHAT_CALL_TIMEOUT_MS/);
  });
});
