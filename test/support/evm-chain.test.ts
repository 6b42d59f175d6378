// The EVM devnet end to end: the real x402 client signs, the real x402 facilitator verifies and settles on anvil.
import { x402Client } from '@x402/core/client';
import { x402Facilitator } from '@x402/core/facilitator';
import {
  decodePaymentSignatureHeader,
  encodePaymentRequiredHeader,
  encodePaymentResponseHeader,
} from '@x402/core/http';
import type { PaymentPayload, PaymentRequirements } from '@x402/core/types';
import { toClientEvmSigner, toFacilitatorEvmSigner } from '@x402/evm';
import { registerExactEvmScheme as registerExactEvmClient } from '@x402/evm/exact/client';
import { registerExactEvmScheme as registerExactEvmFacilitator } from '@x402/evm/exact/facilitator';
import { decodePaymentResponseHeader, wrapFetchWithPayment } from '@x402/fetch';
import { createPublicClient, http } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { describe, expect, it } from 'vitest';
import { type DevnetKey, devnetClient, type EvmDevnet } from '../../src/devnet/evm.js';
import { useEvmChain } from './evm-chain.js';

function requirementsFor(devnet: EvmDevnet, amount: bigint): PaymentRequirements {
  return {
    scheme: 'exact',
    network: devnet.network,
    amount: amount.toString(),
    asset: devnet.asset,
    payTo: devnet.payTo,
    maxTimeoutSeconds: 60,
    extra: { name: devnet.tokenName, version: devnet.tokenVersion },
  };
}

/** An in-process facilitator whose settling transactions are sent (and paid for) by the devnet's facilitator key. */
function facilitatorFor(devnet: EvmDevnet): x402Facilitator {
  const wallet = devnetClient(devnet, devnet.facilitator.privateKey);
  const signer = toFacilitatorEvmSigner({
    address: wallet.account.address,
    getCode: (args) => wallet.getCode(args),
    readContract: (args) => wallet.readContract(args),
    // x402 types the typed data loosely (Record<string, unknown>); viem wants its own shapes.
    verifyTypedData: (args) => wallet.verifyTypedData(args as Parameters<typeof wallet.verifyTypedData>[0]),
    writeContract: (args) => wallet.writeContract(args),
    sendTransaction: (args) => wallet.sendTransaction(args),
    waitForTransactionReceipt: (args) => wallet.waitForTransactionReceipt(args),
  });
  return registerExactEvmFacilitator(new x402Facilitator(), { signer, networks: devnet.network });
}

/** An x402 client paying with `payer`'s key; spend controls are off since TestUSDC is not a known asset. */
function clientFor(devnet: EvmDevnet, payer: DevnetKey): x402Client {
  const account = privateKeyToAccount(payer.privateKey);
  const reader = createPublicClient({ transport: http(devnet.rpcUrl) });
  return registerExactEvmClient(new x402Client().setSpendControls(false), {
    signer: toClientEvmSigner(account, reader),
  });
}

function sign(
  devnet: EvmDevnet,
  payer: DevnetKey,
  requirements: PaymentRequirements,
): Promise<PaymentPayload> {
  return clientFor(devnet, payer).createPaymentPayload({
    x402Version: 2,
    resource: { url: 'http://kasir.test/v1/paid' },
    accepts: [requirements],
  });
}

describe('EVM devnet (anvil, chain 31337, 6 decimals)', () => {
  const chain = useEvmChain();

  it('deploys TestUSDC and funds the payer with tokens but no ETH', async () => {
    const { devnet } = chain;
    expect(devnet.network).toBe('eip155:31337');
    expect(await chain.balanceOf(devnet.payer.address)).toBe(1_000_000_000n);
    const reader = createPublicClient({ transport: http(devnet.rpcUrl) });
    expect(await reader.getBalance({ address: devnet.payer.address })).toBe(0n);
    expect(await reader.getBalance({ address: devnet.facilitator.address })).toBeGreaterThan(0n);
  });

  it('settles a payment signed by the x402 client, then refuses its replay', async () => {
    const { devnet } = chain;
    const requirements = requirementsFor(devnet, 12_345n);
    const payload = await sign(devnet, devnet.payer, requirements);
    const facilitator = facilitatorFor(devnet);

    expect(await facilitator.verify(payload, requirements)).toMatchObject({ isValid: true });
    const settled = await facilitator.settle(payload, requirements);
    expect(settled).toMatchObject({ success: true, network: devnet.network, payer: devnet.payer.address });
    expect(settled.transaction).toMatch(/^0x[0-9a-f]{64}$/);
    expect(await chain.balanceOf(devnet.payer.address)).toBe(1_000_000_000n - 12_345n);
    expect(await chain.balanceOf(devnet.payTo)).toBe(12_345n);

    // The token marked the nonce used; without Multicall3 on the devnet, verify can only say the simulation failed.
    const again = await facilitator.verify(payload, requirements);
    expect(again.isValid).toBe(false);
    expect(again.invalidReason).toBe('invalid_exact_evm_transaction_simulation_failed');
    const replay = await facilitatorFor(devnet).settle(payload, requirements);
    expect(replay).toMatchObject({ success: false, errorReason: 'invalid_exact_evm_nonce_already_used' });
    expect(await chain.balanceOf(devnet.payTo)).toBe(12_345n);
  });

  it('starts each test from the state after setup', async () => {
    expect(await chain.balanceOf(chain.devnet.payTo)).toBe(0n);
    expect(await chain.balanceOf(chain.devnet.payer.address)).toBe(1_000_000_000n);
  });

  it('refuses a payment whose amount was raised after signing', async () => {
    const { devnet } = chain;
    const signed = await sign(devnet, devnet.payer, requirementsFor(devnet, 1_000n));
    const raised = requirementsFor(devnet, 900_000n);
    const authorization = (signed.payload as { authorization: Record<string, string> }).authorization;
    const tampered: PaymentPayload = {
      ...signed,
      accepted: raised,
      payload: { ...signed.payload, authorization: { ...authorization, value: raised.amount } },
    };
    const facilitator = facilitatorFor(devnet);

    expect(await facilitator.verify(tampered, raised)).toMatchObject({
      isValid: false,
      invalidReason: 'invalid_exact_evm_signature',
    });
    expect(await facilitator.settle(tampered, raised)).toMatchObject({ success: false });
    // The untouched payload does not pay the raised price either.
    expect((await facilitator.verify(signed, raised)).isValid).toBe(false);
    expect(await chain.balanceOf(devnet.payTo)).toBe(0n);
  });

  it('funds fresh payers and pays through @x402/fetch', async () => {
    const { devnet } = chain;
    const payer = await chain.freshPayer(5_000n);
    expect(await chain.balanceOf(payer.address)).toBe(5_000n);
    const requirements = requirementsFor(devnet, 2_500n);
    const facilitator = facilitatorFor(devnet);
    // A stand-in for a paid route: 402 without a payment, verify + settle with one.
    const server: typeof fetch = async (input, init) => {
      const header = new Request(input, init).headers.get('PAYMENT-SIGNATURE');
      if (!header) {
        const required = {
          x402Version: 2,
          resource: { url: 'http://kasir.test/v1/paid' },
          accepts: [requirements],
        };
        return new Response('{}', {
          status: 402,
          headers: { 'PAYMENT-REQUIRED': encodePaymentRequiredHeader(required) },
        });
      }
      const payload = decodePaymentSignatureHeader(header);
      const verified = await facilitator.verify(payload, requirements);
      if (!verified.isValid) return new Response(verified.invalidReason, { status: 402 });
      const settled = await facilitator.settle(payload, requirements);
      return new Response('paid', { headers: { 'PAYMENT-RESPONSE': encodePaymentResponseHeader(settled) } });
    };

    const response = await wrapFetchWithPayment(
      server,
      clientFor(devnet, payer),
    )('http://kasir.test/v1/paid');
    expect(response.status).toBe(200);
    expect(await response.text()).toBe('paid');
    const receipt = decodePaymentResponseHeader(response.headers.get('PAYMENT-RESPONSE') ?? '');
    expect(receipt).toMatchObject({ success: true, payer: payer.address });
    expect(await chain.balanceOf(payer.address)).toBe(2_500n);
    expect(await chain.balanceOf(devnet.payTo)).toBe(2_500n);
  });
});

describe('EVM devnet with BNB Smart Chain settings (chain 56, 18 decimals)', () => {
  const chain = useEvmChain({ chainId: 56, decimals: 18 });

  it('settles 0.01 token (10^16 base units)', async () => {
    const { devnet } = chain;
    expect(devnet.network).toBe('eip155:56');
    const amount = 10n ** 16n;
    const requirements = requirementsFor(devnet, amount);
    const payload = await sign(devnet, devnet.payer, requirements);
    const facilitator = facilitatorFor(devnet);

    expect(await facilitator.verify(payload, requirements)).toMatchObject({ isValid: true });
    expect(await facilitator.settle(payload, requirements)).toMatchObject({
      success: true,
      network: 'eip155:56',
    });
    expect(await chain.balanceOf(devnet.payer.address)).toBe(1_000n * 10n ** 18n - amount);
    expect(await chain.balanceOf(devnet.payTo)).toBe(amount);
  });
});
