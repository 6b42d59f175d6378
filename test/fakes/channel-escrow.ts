// An in-process stand-in for Tempo's TIP-1034 escrow precompile, behind kasir's ChannelBackend: channels opened with
// a deposit, topped up, asked to close, and closed with a voucher whose EIP-712 signature it checks as the escrow
// does (mppx's voucher primitives). Channel ids are the real ones (mppx's computeId).
import { randomBytes } from 'node:crypto';
import { Session } from 'mppx/tempo';
import type { ChannelBackend, ChannelDescriptor, ChannelState } from '../../src/rails/channel/backend.js';

export const ESCROW = '0x4d50500000000000000000000000000000000000';

export interface FakeEscrow extends ChannelBackend {
  open(descriptor: ChannelDescriptor, deposit: bigint): `0x${string}`;
  topUp(id: `0x${string}`, amount: bigint): void;
  requestClose(id: `0x${string}`): void;
  closed: Array<{ id: string; cumulative: bigint; capture: bigint }>;
}

export function startFakeEscrow(chainId: number): FakeEscrow {
  const channels = new Map<string, ChannelState & { descriptor: ChannelDescriptor; finalized: boolean }>();
  const closed: FakeEscrow['closed'] = [];
  const idOf = (d: ChannelDescriptor) =>
    Session.Precompile.Channel.computeId({ ...d, chainId, escrow: ESCROW });
  const get = (id: string) => {
    const ch = channels.get(id.toLowerCase());
    if (!ch) throw new Error(`no channel ${id}`);
    return ch;
  };
  return {
    chainId,
    escrow: ESCROW,
    // The in-process escrow lets anyone close (tests close as the payee).
    closer: '0x0000000000000000000000000000000000000000',
    idOf,
    closed,
    open(descriptor, deposit) {
      const id = idOf(descriptor);
      channels.set(id.toLowerCase(), {
        descriptor,
        deposit,
        settled: 0n,
        closeRequestedAt: 0,
        finalized: false,
      });
      return id;
    },
    topUp(id, amount) {
      get(id).deposit += amount;
    },
    requestClose(id) {
      get(id).closeRequestedAt = Math.floor(Date.now() / 1000);
    },
    // The in-process escrow takes no signed transactions (tests open channels with `open` above).
    broadcastOpen: async () => {
      throw new Error('the in-process escrow takes no open transactions');
    },
    broadcastTopUp: async () => {
      throw new Error('the in-process escrow takes no top-up transactions');
    },
    async state(descriptor) {
      const ch = channels.get(idOf(descriptor).toLowerCase());
      return ch && !ch.finalized
        ? { deposit: ch.deposit, settled: ch.settled, closeRequestedAt: ch.closeRequestedAt }
        : null;
    },
    async close(descriptor, cumulative, capture, signature) {
      const id = idOf(descriptor);
      const ch = get(id);
      if (ch.finalized) throw new Error('channel finalized');
      if (capture > cumulative || cumulative > ch.deposit) throw new Error('bad close amounts');
      if (cumulative > 0n) {
        const signer =
          descriptor.authorizedSigner === '0x0000000000000000000000000000000000000000'
            ? descriptor.payer
            : descriptor.authorizedSigner;
        const ok = Session.Precompile.Voucher.verifyVoucher(
          ESCROW,
          chainId,
          { channelId: id, cumulativeAmount: cumulative, signature },
          signer,
        );
        if (!ok) throw new Error('invalid voucher signature');
      }
      ch.settled = capture;
      ch.finalized = true;
      closed.push({ id, cumulative, capture });
      return `0x${randomBytes(32).toString('hex')}`;
    },
  };
}
