/**
 * A TIP-1034 channel's descriptor and ids as zod schemas, apart from the session wire so that the channel routes
 * describe and check them without loading mppx (an instance with channels off never does).
 */
import { z } from 'zod';

const Address = z.string().regex(/^0x[0-9a-fA-F]{40}$/, 'must be a 0x address');
export const Bytes32 = z.string().regex(/^0x[0-9a-fA-F]{64}$/, 'must be 32 bytes of hex');
/** A TIP-1034 channel's descriptor, field by field (a session credential's, or a channel registered by hand). */
export const Descriptor = z.object({
  payer: Address,
  payee: Address,
  operator: Address,
  token: Address,
  salt: Bytes32,
  authorizedSigner: Address,
  expiringNonceHash: Bytes32,
});
