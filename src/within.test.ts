// within(): the promise's own outcome when it settles in time, a DeadlineError when the deadline passes first.
import { describe, expect, it } from 'vitest';
import { DeadlineError, within } from './within.js';

describe('within', () => {
  it('answers what the promise answers in time', async () => {
    await expect(within(Promise.resolve(7), 1_000)).resolves.toBe(7);
  });

  it("passes the promise's own failure on, not as a deadline", async () => {
    const failed = within(Promise.reject(new Error('refused')), 1_000);
    await expect(failed).rejects.toThrow('refused');
    await expect(failed).rejects.not.toBeInstanceOf(DeadlineError);
  });

  it('rejects with a DeadlineError once the deadline passes, the late failure left handled', async () => {
    const late = new Promise((_, reject) => setTimeout(() => reject(new Error('too late')), 100));
    const bounded = within(late, 20);
    await expect(bounded).rejects.toBeInstanceOf(DeadlineError);
    await expect(bounded).rejects.toThrow('no answer within 20 ms');
    // The late rejection lands after the deadline with no handler of the caller's: it must not be unhandled.
    await new Promise((r) => setTimeout(r, 150));
  });
});
