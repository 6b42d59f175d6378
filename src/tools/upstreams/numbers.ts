/** Reading numbers out of upstream JSON (which often sends them as strings) and rounding them for answers. */

/** A finite number from a number or numeric string; null for anything else. */
export function num(value: unknown): number | null {
  const n = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  return typeof n === 'number' && Number.isFinite(n) ? n : null;
}

/** `x` kept to `digits` significant digits (past that is float noise); null stays null. */
export function sig(x: number | null, digits = 8): number | null {
  return x === null ? null : Number(x.toPrecision(digits));
}

/** `x` rounded to `places` decimals; null stays null. */
export function fixed(x: number | null, places = 2): number | null {
  if (x === null) return null;
  const f = 10 ** places;
  return Math.round(x * f) / f;
}

/** Comma-separated values, trimmed, empties dropped, each once. */
export function csv(value: unknown): string[] {
  if (typeof value !== 'string') return [];
  return [
    ...new Set(
      value
        .split(',')
        .map((v) => v.trim())
        .filter(Boolean),
    ),
  ];
}
