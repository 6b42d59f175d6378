// A payer on the fake channel escrow, as the channel tests use one: kasir's channel settings, a channel opened with a
// deposit, and its vouchers signed for real (mppx's EIP-712 voucher primitives).
import { Session } from 'mppx/tempo';
import { createClient, http } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import type { ChannelDescriptor } from '../../src/rails/channel/backend.js';
import { ESCROW, type FakeEscrow } from '../fakes/channel-escrow.js';
import { postJson, type TestKasir } from './app.js';

export const CHAIN_ID = 1337;
export const PATH_USD = '0x20c0000000000000000000000000000000000000';
export const PAYEE = privateKeyToAccount(generatePrivateKey()).address;
export const ADMIN = 'channel-admin-token-0123456789';
const ZERO = '0x0000000000000000000000000000000000000000';

const signerClient = createClient({ transport: http('http://127.0.0.1:9') });

/** The settings that turn payment channels on (with the Tempo charge they need). */
export const channelEnv = {
  MPP_TEMPO_RECIPIENT: PAYEE,
  MPP_TEMPO_RPC_URL: 'http://127.0.0.1:9',
  MPP_TEMPO_CHAIN_ID: String(CHAIN_ID),
  MPP_TEMPO_CURRENCY: PATH_USD,
  MPP_CHANNEL_OPERATOR_KEY: generatePrivateKey(),
  ADMIN_TOKEN: ADMIN,
};

export interface ChannelPayer {
  id: `0x${string}`;
  descriptor: ChannelDescriptor;
  /** The voucher's signature for `cumulative`, by the payer (or `by`). */
  sign(cumulative: number, by?: ReturnType<typeof privateKeyToAccount>): Promise<`0x${string}`>;
  /** A `Payment-Voucher` header value for `cumulative`. */
  voucher(cumulative: number, by?: ReturnType<typeof privateKeyToAccount>): Promise<string>;
}

/** A payer with a channel of `deposit` on the fake escrow, and a way to sign its vouchers. */
export function payerOn(escrow: FakeEscrow, deposit: bigint): ChannelPayer {
  const key = generatePrivateKey();
  const account = privateKeyToAccount(key);
  const descriptor: ChannelDescriptor = {
    payer: account.address,
    payee: PAYEE,
    operator: ZERO,
    token: PATH_USD,
    salt: `0x${Buffer.from(key.slice(2, 34)).toString('hex').slice(0, 64).padEnd(64, '0')}`,
    authorizedSigner: ZERO,
    expiringNonceHash: `0x${'ab'.repeat(32)}`,
  };
  const id = escrow.open(descriptor, deposit);
  const sign = (cumulative: number, by = account) =>
    Session.Precompile.Voucher.signVoucher(
      signerClient,
      by,
      { channelId: id, cumulativeAmount: BigInt(cumulative) },
      ESCROW,
      CHAIN_ID,
    );
  const voucher = async (cumulative: number, by = account) =>
    `channel="${id}", cumulative="${cumulative}", signature="${await sign(cumulative, by)}"`;
  return { id, descriptor, sign, voucher };
}

/** A chat completion on `kasir` paid on the channel rail with `voucher` (PAYMENT-VOUCHER). */
export function chatWithVoucher(
  kasir: Pick<TestKasir, 'app'>,
  voucher: string,
  body: Record<string, unknown>,
): Response | Promise<Response> {
  return postJson(kasir, '/v1/chat/completions', body, { 'payment-voucher': voucher });
}

/** Opens a channel of `deposit` for a new payer on the fake escrow and registers it with `kasir` (POST /v1/channels). */
export async function openChannelOn(
  kasir: Pick<TestKasir, 'app'>,
  escrow: FakeEscrow,
  deposit: bigint,
): Promise<ChannelPayer> {
  const p = payerOn(escrow, deposit);
  const res = await postJson(kasir, '/v1/channels', { descriptor: p.descriptor });
  if (res.status !== 200)
    throw new Error(`registering the channel answered ${res.status}: ${await res.text()}`);
  return p;
}
