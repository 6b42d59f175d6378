/** Money formatting: integer micro-USD to a decimal USD string, exactly (no floating point). */

/** 1_250_000 → "1.250000"; -5 → "-0.000005". */
export function formatUsd(microUsd: number): string {
  const sign = microUsd < 0 ? '-' : '';
  const abs = Math.abs(microUsd);
  const whole = Math.floor(abs / 1_000_000);
  const frac = String(abs % 1_000_000).padStart(6, '0');
  return `${sign}${whole}.${frac}`;
}
