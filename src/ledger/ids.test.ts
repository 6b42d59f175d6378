import { describe, expect, it, vi } from 'vitest';
import { newId } from './ids.js';

describe('newId', () => {
  it('is the prefix, 12 hex digits of the time, then 12 random ones', () => {
    vi.useFakeTimers({ now: 0x18c_1a2b_3c4d, toFake: ['Date'] });
    try {
      const id = newId('chg');
      expect(id).toMatch(/^chg_018c1a2b3c4d[0-9a-f]{12}$/);
    } finally {
      vi.useRealTimers();
    }
  });

  it('never repeats, across many refills of its random pool, within one millisecond', () => {
    vi.useFakeTimers({ now: 1_700_000_000_000, toFake: ['Date'] });
    try {
      const ids = Array.from({ length: 20_000 }, () => newId('hold'));
      expect(new Set(ids).size).toBe(ids.length);
      expect(new Set(ids.map((id) => id.slice(5, 17))).size).toBe(1);
    } finally {
      vi.useRealTimers();
    }
  });

  it('orders by time across milliseconds', () => {
    vi.useFakeTimers({ now: 1_700_000_000_000, toFake: ['Date'] });
    try {
      const earlier = newId('lease');
      vi.setSystemTime(1_700_000_000_001);
      const later = newId('lease');
      expect(later > earlier).toBe(true);
      expect(later.slice(6, 18)).toBe((1_700_000_000_001).toString(16).padStart(12, '0'));
    } finally {
      vi.useRealTimers();
    }
  });
});
