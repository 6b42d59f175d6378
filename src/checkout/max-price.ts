/** The optional `X-Max-Price` header: the most (micro-USD) the caller accepts to pay for this call. */
import { ApiError } from '../http/errors.js';

export function parseMaxPrice(header: string | undefined): number | null {
  if (header === undefined) return null;
  const value = header.trim();
  if (!/^\d{1,15}$/.test(value)) {
    throw new ApiError('invalid_input', 'X-Max-Price must be a whole number of micro-USD', [
      { field: 'X-Max-Price', message: 'must be a non-negative integer (micro-USD)' },
    ]);
  }
  return Number(value);
}

export function assertWithinMaxPrice(max: number | null, priceMicroUsd: number, offerId: string): void {
  if (max === null || priceMicroUsd <= max) return;
  throw new ApiError(
    'price_above_max',
    `${offerId} costs ${priceMicroUsd} micro-USD for this input, above X-Max-Price ${max}; nothing was charged`,
    { price_micro_usd: priceMicroUsd, max_price_micro_usd: max },
  );
}
