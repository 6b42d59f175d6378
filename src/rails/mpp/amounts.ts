/** Integer micro-USD as the decimal dollar strings mppx takes ("0.001234"); exact, never through a float. */

export function microUsdToDollars(microUsd: number): string {
  if (!Number.isSafeInteger(microUsd) || microUsd < 0)
    throw new RangeError(`not a micro-USD amount: ${microUsd}`);
  const whole = Math.floor(microUsd / 1_000_000);
  const fraction = String(microUsd % 1_000_000).padStart(6, '0');
  return `${whole}.${fraction}`;
}

/** True when the amount is a whole number of cents (what a card can be charged). */
export const wholeCents = (microUsd: number) => microUsd % 10_000 === 0;
