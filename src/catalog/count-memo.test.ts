// The memo of lately counted texts: use order, the weight bound, and texts too long to keep.
import { describe, expect, it } from 'vitest';
import { CountMemo } from './count-memo.js';

describe('CountMemo', () => {
  it('keeps counts by text and forgets the least recently used past its weight', () => {
    // Each entry of a 10-character text weighs 10 + 64: two fit in 150, a third pushes one out.
    const memo = new CountMemo(150, 100);
    memo.set('aaaaaaaaaa', 1);
    memo.set('bbbbbbbbbb', 2);
    expect(memo.get('aaaaaaaaaa')).toBe(1); // now the most recent: 'b…' is the oldest
    memo.set('cccccccccc', 3);
    expect(memo.size).toBe(2);
    expect(memo.get('bbbbbbbbbb')).toBeUndefined();
    expect(memo.get('aaaaaaaaaa')).toBe(1);
    expect(memo.get('cccccccccc')).toBe(3);
  });

  it('looks texts up by their characters, not by the string object', () => {
    const memo = new CountMemo(1000, 100);
    memo.set(JSON.stringify({ tool: 'x' }), 5);
    expect(memo.get(JSON.stringify({ tool: 'x' }))).toBe(5);
  });

  it('does not keep a text longer than its limit, and keeps the first count of a text', () => {
    const memo = new CountMemo(10_000, 8);
    memo.set('123456789', 3);
    expect(memo.get('123456789')).toBeUndefined();
    memo.set('short', 1);
    memo.set('short', 2);
    expect(memo.get('short')).toBe(1);
    expect(memo.size).toBe(1);
  });

  it('never weighs more than its bound, whatever is set', () => {
    const memo = new CountMemo(1000, 500);
    for (let i = 0; i < 200; i++) memo.set(`${i}`.padEnd(1 + ((i * 37) % 400), 'x'), i);
    let weight = 0;
    // Every key still there weighs its length plus 64.
    for (let i = 0; i < 200; i++) {
      const text = `${i}`.padEnd(1 + ((i * 37) % 400), 'x');
      if (memo.get(text) !== undefined) weight += text.length + 64;
    }
    expect(weight).toBeLessThanOrEqual(1000);
    expect(memo.size).toBeGreaterThan(0);
  });
});
