/** Integer micro-USD to a token's base units, exactly (BigInt; never a float). */

/**
 * The amount of a USD-pegged token with `decimals` decimals that pays `microUsd`. Tokens with 6 or more decimals
 * (USDC: 6, most BNB Smart Chain tokens: 18) are exact; a token with fewer is rounded up, never under the quote.
 */
export function baseUnits(microUsd: number, decimals: number): string {
  if (!Number.isSafeInteger(microUsd) || microUsd < 0)
    throw new RangeError(`not a micro-USD amount: ${microUsd}`);
  if (!Number.isInteger(decimals) || decimals < 0 || decimals > 36)
    throw new RangeError(`bad decimals: ${decimals}`);
  const micro = BigInt(microUsd);
  if (decimals >= 6) return (micro * 10n ** BigInt(decimals - 6)).toString();
  const unit = 10n ** BigInt(6 - decimals);
  return ((micro + unit - 1n) / unit).toString();
}
