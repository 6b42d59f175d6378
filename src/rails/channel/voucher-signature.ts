/**
 * Whether a voucher is signed by a channel's signer (EIP-712, mppx's TIP-1034 precompile code). mppx's Tempo module
 * takes over a second of CPU to load, so it loads on first use; the wiring preloads it when channels are on.
 */
import type { Session } from 'mppx/tempo';

type VerifyVoucher = typeof Session.Precompile.Voucher.verifyVoucher;

let tempo: Promise<typeof import('mppx/tempo')> | undefined;

/** Loads the signature check's code (once); awaiting it at start keeps the first voucher's latency down. */
export const loadVoucherSignature = () => {
  tempo ??= import('mppx/tempo');
  return tempo;
};

export async function voucherSignedBy(
  ...args: Parameters<VerifyVoucher>
): Promise<ReturnType<VerifyVoucher>> {
  const { Session } = await loadVoucherSignature();
  return Session.Precompile.Voucher.verifyVoucher(...args);
}
