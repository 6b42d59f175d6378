// Proves svm-chain.ts against the real @x402/svm exact facilitator: settlement moves tokens; replays, underpayments and wrong recipients are refused.
import {
  address,
  decompileTransactionMessage,
  generateKeyPairSigner,
  getCompiledTransactionMessageDecoder,
} from '@solana/kit';
import { x402Facilitator } from '@x402/core/facilitator';
import { decodeTransactionFromPayload, type ExactSvmPayloadV2 } from '@x402/svm';
import { registerExactSvmScheme } from '@x402/svm/exact/facilitator';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createSvmChain, type SvmChain } from './svm-chain.js';

let chain: SvmChain;
let facilitator: x402Facilitator;
const newFacilitator = () =>
  registerExactSvmScheme(new x402Facilitator(), { signer: chain.facilitatorSigner, networks: chain.network });
const balances = () => [chain.tokenBalance(chain.payer.address), chain.tokenBalance(chain.payTo)];

beforeAll(async () => {
  chain = await createSvmChain({ payerFunds: 5_000_000n });
  facilitator = newFacilitator();
});
afterAll(() => chain.close());

it('builds the stock client transaction: budget, TransferChecked, memo; fee payer unsigned', async () => {
  const requirements = chain.requirements(1500n);
  const payment = await chain.pay(requirements);
  expect(payment).toMatchObject({
    x402Version: 2,
    accepted: requirements,
    resource: { url: 'http://localhost/test' },
  });
  const tx = decodeTransactionFromPayload(payment.payload as ExactSvmPayloadV2);
  const message = decompileTransactionMessage(getCompiledTransactionMessageDecoder().decode(tx.messageBytes));
  const programs = (message.instructions as readonly { programAddress: string }[]).map(
    (ix) => ix.programAddress,
  );
  expect(programs).toEqual([
    'ComputeBudget111111111111111111111111111111',
    'ComputeBudget111111111111111111111111111111',
    'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA',
    'MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr',
  ]);
  expect(message.feePayer.address).toBe(chain.feePayer);
  expect(tx.signatures[chain.feePayer as keyof typeof tx.signatures]).toBeNull();
  expect(tx.signatures[chain.payer.address as keyof typeof tx.signatures]).toBeInstanceOf(Uint8Array);
});

it('verifies and settles; the payer pays exactly the amount; the same payload is refused again', async () => {
  const requirements = chain.requirements(1500n);
  const payment = await chain.pay(requirements);
  const [payerBefore, payToBefore] = balances();
  expect(await facilitator.verify(payment, requirements)).toMatchObject({
    isValid: true,
    payer: chain.payer.address,
  });
  const settled = await facilitator.settle(payment, requirements);
  expect(settled).toMatchObject({ success: true, network: chain.network, payer: chain.payer.address });
  expect(settled.transaction).toMatch(/^[1-9A-HJ-NP-Za-km-z]{64,88}$/);
  expect(balances()).toEqual([(payerBefore ?? 0n) - 1500n, (payToBefore ?? 0n) + 1500n]);

  // The chain already holds the transaction, so verify's simulation fails; settle hits the duplicate cache first.
  expect(await facilitator.verify(payment, requirements)).toMatchObject({
    isValid: false,
    invalidReason: 'invalid_exact_svm_transaction_simulation_failed',
    invalidMessage: expect.stringContaining('AlreadyProcessed'),
  });
  expect(await facilitator.settle(payment, requirements)).toMatchObject({
    success: false,
    errorReason: 'duplicate_settlement',
    transaction: '',
  });
  expect(balances()).toEqual([(payerBefore ?? 0n) - 1500n, (payToBefore ?? 0n) + 1500n]);
});

it('refuses a replay on the chain once the facilitator cache is gone', async () => {
  const requirements = chain.requirements(700n);
  const payment = await chain.pay(requirements);
  expect((await facilitator.settle(payment, requirements)).success).toBe(true);
  const after = balances();

  const fresh = newFacilitator();
  expect(await fresh.settle(payment, requirements)).toMatchObject({
    success: false,
    errorReason: 'invalid_exact_svm_transaction_simulation_failed',
  });
  // Even past simulation, litesvm keeps the signature in its history and refuses the resend.
  const { transaction } = payment.payload as ExactSvmPayloadV2;
  const signed = await chain.facilitatorSigner.signTransaction(
    transaction,
    address(chain.feePayer),
    chain.network,
  );
  await expect(chain.facilitatorSigner.sendTransaction(signed, chain.network)).rejects.toThrow(
    /AlreadyProcessed/,
  );
  expect(balances()).toEqual(after);
});

it('lets two verifies of one payload pass before settle; only the first settle wins', async () => {
  const requirements = chain.requirements(300n);
  const payment = await chain.pay(requirements);
  const [first, second] = await Promise.all([
    facilitator.verify(payment, requirements),
    facilitator.verify(payment, requirements),
  ]);
  expect([first?.isValid, second?.isValid]).toEqual([true, true]);
  const [a, b] = await Promise.all([
    facilitator.settle(payment, requirements),
    facilitator.settle(payment, requirements),
  ]);
  expect([a.success, b.success].sort()).toEqual([false, true]);
  expect([a, b].find((r) => !r.success)?.errorReason).toBe('duplicate_settlement');
});

it('refuses an underpayment: the transfer carries less than requirements.amount', async () => {
  const requirements = chain.requirements(1500n);
  const payment = await chain.payWith(requirements, { amount: '1000' });
  const before = balances();
  expect(await facilitator.verify(payment, requirements)).toMatchObject({
    isValid: false,
    invalidReason: 'invalid_exact_svm_payload_amount_mismatch',
  });
  expect(await facilitator.settle(payment, requirements)).toMatchObject({
    success: false,
    errorReason: 'invalid_exact_svm_payload_amount_mismatch',
  });
  expect(balances()).toEqual(before);
});

it('refuses a payment to another payTo', async () => {
  const stranger = (await generateKeyPairSigner()).address;
  await chain.openTokenAccount(stranger);
  const requirements = chain.requirements(1500n);
  const payment = await chain.payWith(requirements, { payTo: stranger });
  const before = balances();
  expect(await facilitator.verify(payment, requirements)).toMatchObject({
    isValid: false,
    invalidReason: 'invalid_exact_svm_payload_recipient_mismatch',
  });
  expect(await facilitator.settle(payment, requirements)).toMatchObject({
    success: false,
    errorReason: 'invalid_exact_svm_payload_recipient_mismatch',
  });
  expect(balances()).toEqual(before);
  expect(chain.tokenBalance(stranger)).toBe(0n);
});
