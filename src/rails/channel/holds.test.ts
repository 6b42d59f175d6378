// A call's end writes its usage record in the same transaction as its settlement: a process killed between two
// separate writes left the channel's spend charged (and paid on chain at the close) with no usage record of it.
import { describe, expect, it } from 'vitest';
import { DB_TARGETS, useTestDb } from '../../../test/support/app.js';
import { nowIso } from '../../ledger/ids.js';
import {
  type ChannelHold,
  type ChannelUsage,
  newChannelHold,
  settleChannelCall,
  sweepChannelHolds,
} from './holds.js';

const usage = (requestId: string): ChannelUsage => ({
  created_at: nowIso(),
  request_id: requestId,
  rail: 'channel',
  account_id: null,
  key_id: null,
  payer: 'did:pkh:eip155:1337:0xpayer',
  offer_id: 'test/offer',
  quote_micro_usd: 100,
  http_status: 200,
  latency_ms: 1,
  error_code: null,
  route: '/v1/chat/completions',
  network: 'eip155:1337',
  tx_id: null,
});

describe.each(DB_TARGETS)('settling a channel call on %s', (target) => {
  const store = useTestDb(target);
  let seq = 0;

  /** A channel with `accepted` signed for and one running call holding `amount` of it. */
  async function channelWithCall(accepted: number, amount: number): Promise<ChannelHold> {
    const id = `0x${(++seq).toString(16).padStart(64, '0')}`;
    const now = nowIso();
    await store.db.kysely
      .insertInto('payment_channels')
      .values({
        id,
        payer: '0xpayer',
        signer: '0xpayer',
        descriptor: '{}',
        deposit: 10_000,
        settled: 0,
        accepted,
        voucher_signature: null,
        spent: amount,
        in_flight: amount,
        units: 0,
        close_requested_at: null,
        finalized_at: null,
        close_tx: null,
        created_at: now,
        updated_at: now,
      })
      .execute();
    const hold = newChannelHold(id, 30);
    await store.db.kysely
      .insertInto('channel_holds')
      .values({ id: hold.id, channel_id: id, amount, created_at: now, expires_at: now })
      .execute();
    return hold;
  }
  const recorded = (requestId: string) =>
    store.db.kysely
      .selectFrom('usage_records')
      .select(['charged_micro_usd', 'status', 'route', 'network', 'payer'])
      .where('request_id', '=', requestId)
      .execute();
  const channel = (id: string) =>
    store.db.kysely
      .selectFrom('payment_channels')
      .select(['spent', 'in_flight'])
      .where('id', '=', id)
      .executeTakeFirstOrThrow();

  it('a served call: its spend and its usage record, charged the same, in one write', async () => {
    const hold = await channelWithCall(500, 100);
    const settled = await settleChannelCall(store.db, hold, 100, true, usage('served'));
    expect(settled.charged).toBe(100);
    expect(await channel(hold.channelId)).toEqual({ spent: 100, in_flight: 0 });
    expect(await recorded('served')).toEqual([
      {
        charged_micro_usd: 100,
        status: 'charged',
        route: '/v1/chat/completions',
        network: 'eip155:1337',
        payer: 'did:pkh:eip155:1337:0xpayer',
      },
    ]);
  });

  it('a failed call: nothing spent, its usage record voided', async () => {
    const hold = await channelWithCall(500, 100);
    await settleChannelCall(store.db, hold, 0, false, usage('failed'));
    expect(await channel(hold.channelId)).toEqual({ spent: 0, in_flight: 0 });
    expect(await recorded('failed')).toMatchObject([{ charged_micro_usd: 0, status: 'voided' }]);
  });

  it('a call whose hold the sweeper gave back: recorded at what it was charged late', async () => {
    const hold = await channelWithCall(500, 100);
    await sweepChannelHolds(store.db, new Date(Date.now() + 1000));
    expect(await channel(hold.channelId)).toEqual({ spent: 0, in_flight: 0 });
    const settled = await settleChannelCall(store.db, hold, 100, true, usage('late'));
    expect(settled.charged).toBe(100);
    expect(await channel(hold.channelId)).toEqual({ spent: 100, in_flight: 0 });
    expect(await recorded('late')).toMatchObject([{ charged_micro_usd: 100, status: 'charged' }]);
  });

  it('without a usage record, settles as before and writes none', async () => {
    const hold = await channelWithCall(500, 100);
    await settleChannelCall(store.db, hold, 60, true);
    expect(await channel(hold.channelId)).toEqual({ spent: 60, in_flight: 0 });
  });
});
