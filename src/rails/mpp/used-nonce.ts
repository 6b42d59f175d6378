/**
 * Whether a signed Tempo payment reuses a nonce its sender already used: a node drops such a transaction without an
 * answer (anvil, the devnet's node, takes one expiring-nonce transaction per sender), so the broadcast only times
 * out. Read from the chain (Tempo's nonce manager for a nonce key, the account's count for the protocol nonce), so
 * the payer hears the cause at once instead of "the payment network could not be reached" after the wait.
 */
import { createClient, defineChain, http, publicActions } from 'viem';
import { tempo as tempoMainnet } from 'viem/chains';
import { Abis, Addresses, Transaction } from 'viem/tempo';
import type { MppTempoConfig } from '../../config/mpp.js';

export interface UsedNonce {
  sender: string;
  nonceKey: bigint;
  nonce: bigint;
  /** The sender's next unused nonce under that key. */
  next: bigint;
}

/** A checker on the configured Tempo chain: the used nonce of a serialized transaction, or null (unused, unknown). */
export function usedNonceChecker(config: MppTempoConfig): (serialized: string) => Promise<UsedNonce | null> {
  const chain = defineChain({
    ...tempoMainnet,
    id: config.chainId,
    rpcUrls: { default: { http: [config.rpcUrl] } },
  });
  const client = createClient({ chain, transport: http(config.rpcUrl, { timeout: 5_000 }) }).extend(
    publicActions,
  );
  return async (serialized) => {
    try {
      const tx = Transaction.deserialize(serialized as `0x${string}`) as {
        from?: `0x${string}`;
        nonce?: number | bigint;
        nonceKey?: bigint;
      };
      if (!tx.from || tx.nonce === undefined) return null;
      const nonce = BigInt(tx.nonce);
      const nonceKey = tx.nonceKey ?? 0n;
      const next =
        nonceKey === 0n
          ? BigInt(await client.getTransactionCount({ address: tx.from }))
          : await client.readContract({
              address: Addresses.nonceManager,
              abi: Abis.nonce,
              functionName: 'getNonce',
              args: [tx.from, nonceKey],
            });
      return next > nonce ? { sender: tx.from, nonceKey, nonce, next } : null;
    } catch {
      return null; // not a transaction this can read, or the chain did not answer: no diagnosis
    }
  };
}

/** The refusal's words: what was used, and what to do. */
export function usedNonceMessage(used: UsedNonce): string {
  const key = used.nonceKey === 0n ? 'its account nonce' : `nonce key ${used.nonceKey}`;
  return (
    `the payment transaction's nonce was already used: ${used.sender} already used nonce ${used.nonce} under ${key} ` +
    `(next is ${used.next}), so the network will not take it; sign a new payment (on a local devnet, where each ` +
    'payer can pay once, with a fresh payer)'
  );
}
