/** Rupiah ↔ micro-USD at an integer rate (rupiah per USD), in integers only, and rupiah formatting. */

/** floor(idr × 10^6 / idrPerUsd): the micro-USD an amount of rupiah buys (never rounds in the buyer's favour). */
export function idrToMicroUsd(idr: number, idrPerUsd: number): number {
  return Number((BigInt(idr) * 1_000_000n) / BigInt(idrPerUsd));
}

/** floor(microUsd × idrPerUsd / 10^6): what a balance is worth in whole rupiah (negative amounts toward zero). */
export function microUsdToIdr(microUsd: number, idrPerUsd: number): number {
  return Number((BigInt(microUsd) * BigInt(idrPerUsd)) / 1_000_000n);
}

/** 1250000 → "Rp 1.250.000" (Indonesian thousands separators). */
export function formatIdr(idr: number): string {
  const sign = idr < 0 ? '-' : '';
  return `${sign}Rp ${String(Math.abs(idr)).replace(/\B(?=(\d{3})+(?!\d))/g, '.')}`;
}
