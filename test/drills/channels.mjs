// The payment-channel drill: payers each with their own TIP-1034 channel on the devnet's Tempo escrow (opened by the
// stock mppx session client from a 402's session challenge), each paying chat calls by voucher in a loop on one of
// two kasir instances sharing one PostgreSQL database; one instance `kill -9`ed at a random moment each round and
// brought back (with `--replace`: on a new, empty data folder), its payers carried on against it. Then the dead
// instance's holds are waited out (the sweeper gives them back HOLD_TTL_SECONDS after they were last renewed).
//
// Each call names its own request id (X-Request-Id), so kasir's usage records name the call they charge. A round
// balances when:
// - no hold is left open: `channel_holds` is empty and no channel has anything in flight (every hold charged or
//   released);
// - every answer a caller received (200, its body whole) is charged once, exactly the cost it states;
// - a call charged without its answer delivered is only one the kill caught on the killed instance (in flight there
//   when it died: a non-streamed answer is charged before it is written, so a kill between the two leaves it charged
//   and unreceived; reported as `killWindow`, at most one per payer of that instance);
// - each channel's spend is what its usage records charged (vouchers honoured for exactly the calls charged), and no
//   call answered 5xx.
// With `--close`, after the last round one channel is closed with the session client's close: on chain, the escrow must
// pay the payee exactly the channel's spend and the payer the rest. One only: kasir closes every channel from its one
// operator key, and the devnet's anvil mines one expiring-nonce transaction per sender (a second close times out).
//
//   node test/drills/channels.mjs --rounds 3 --replace [--payers 6] [--close]
import { sessionManager } from 'mppx/client';
import { Session } from 'mppx/tempo';
import { parseEventLogs, publicActions } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import {
  arg,
  between,
  isMain,
  openDrillDb,
  printRounds,
  sleep,
  startCluster,
  tempoDrill,
  withDrill,
} from './harness.mjs';
import { errorCode, HOLD_TTL_SECONDS } from './wallet-drill.mjs';

/** What each payer holds, and what its channel escrows (in pathUSD, as mppx's `maxDeposit` takes it). */
const FUNDS = 100_000_000n;
const DEPOSIT = '50';
const CHAT = '/v1/chat/completions';

/** A chat call's body (non-streamed: priced by its quote). */
const chatBody = (payer, n) =>
  JSON.stringify({
    model: 'openai/gpt-4.1-mini',
    messages: [{ role: 'user', content: `channel drill ${payer} ${n}` }],
    max_tokens: between(16, 128),
  });

/** One paid call through the payer's session manager; the call's record (status, cost stated, error) is filled in. */
async function payCall(payer, url, call) {
  try {
    const res = await payer.manager.fetch(`${url}${CHAT}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-request-id': call.id },
      body: chatBody(payer.index, call.n),
    });
    call.status = res.status;
    const text = await res.text();
    if (res.status === 200) call.cost = JSON.parse(text).costMicroUsd;
    else call.code = errorCode({ text });
  } catch (err) {
    call.error = String(err?.cause?.code ?? err?.message ?? err);
  }
}

/** The payers of `instance` paying calls one after the other, each in its own loop, until stopped. */
function loadOn(instance, payers) {
  let running = true;
  const loop = async (payer) => {
    while (running) {
      const n = payer.calls.length + 1;
      const call = { id: `chdrill-${payer.index}-${n}`, n, instance: instance.name, status: null };
      payer.calls.push(call);
      payer.pending = call;
      await payCall(payer, instance.url, call);
      payer.pending = null;
      if (call.status !== 200) await sleep(call.error ? 50 : 10);
    }
  };
  const loops = payers.map(loop);
  return {
    payers,
    stop: async () => {
      running = false;
      await Promise.all(loops);
    },
  };
}

/** Waits until no hold is left on any channel (the dead instance's lapse and are swept), or the deadline passes. */
async function holdsSwept(db, deadline) {
  for (;;) {
    const open = await openHolds(db);
    if (open === 0 || Date.now() > deadline) return open;
    await sleep(1000);
  }
}

/** Holds still open: rows of `channel_holds`, and channels with anything in flight. */
async function openHolds(db) {
  const holds = await db.kysely.selectFrom('channel_holds').select('id').execute();
  const inFlight = await db.kysely
    .selectFrom('payment_channels')
    .select('id')
    .where('in_flight', '!=', 0)
    .execute();
  return holds.length + inFlight.length;
}

/** Kasir's books on channels: each channel's row, and every usage record of the rail. */
async function books(db) {
  const channels = await db.kysely.selectFrom('payment_channels').selectAll().execute();
  const usage = await db.kysely
    .selectFrom('usage_records')
    .select(['request_id', 'payer', 'charged_micro_usd'])
    .where('rail', '=', 'channel')
    .execute();
  return { channels, usage };
}

/**
 * Closes each of `payers`' channels with its session manager and checks the close on chain: the escrow's
 * ChannelClosed pays the payee exactly the channel's spend, the payer the rest of the deposit.
 */
async function closeChannels(payers, db, reader) {
  const bad = [];
  for (const p of payers) {
    const receipt = await p.manager.close();
    const row = await db.kysely
      .selectFrom('payment_channels')
      .selectAll()
      .where('id', '=', p.channelId)
      .executeTakeFirstOrThrow();
    const tx = await reader.getTransactionReceipt({ hash: receipt?.txHash });
    const [event] = parseEventLogs({
      abi: Session.Precompile.escrowAbi,
      eventName: 'ChannelClosed',
      logs: tx.logs,
    });
    const exact =
      tx.status === 'success' &&
      row.finalized_at !== null &&
      event?.args.settledToPayee === BigInt(row.spent) &&
      event?.args.refundedToPayer === BigInt(row.deposit - row.spent);
    if (!exact)
      bad.push({ channel: p.channelId, spent: row.spent, event: String(event?.args.settledToPayee) });
  }
  return bad;
}

/** Runs the drill and returns one row per round. */
export function runChannelDrill({
  rounds = 5,
  payers: payerCount = 6,
  replace = false,
  close = false,
  log = (line) => console.error(line),
  /** A test's signal: the drill stops its processes and rejects when it aborts (see withDrill). */
  signal,
} = {}) {
  return withDrill('postgres', signal, async (space) => {
    const { chain, upstream, chargeEnv } = await tempoDrill(space);
    const db = await openDrillDb(space.database.url);
    space.atEnd(() => db.close());
    const cluster = await startCluster(space, {
      count: 2,
      env: () => ({
        ...chargeEnv,
        MPP_CHANNEL_OPERATOR_KEY: chain.channelOperator.privateKey,
        MPP_CHANNEL_ESCROW: chain.escrow,
        // One realm for both instances: a challenge reads the same whichever answers it.
        MPP_REALM: 'kasir.drill',
        OPENAI_API_KEY: 'sk-drill',
        OPENAI_BASE_URL: `${upstream.url}/v1`,
        HOLD_TTL_SECONDS: String(HOLD_TTL_SECONDS),
        SWEEP_INTERVAL_SECONDS: '2',
      }),
    });

    // Each payer opens its channel with its first call (a devnet payer is good for one on-chain transaction).
    const payers = [];
    for (let index = 0; index < payerCount; index++) {
      const key = await chain.fundPayer(FUNDS);
      const manager = sessionManager({
        account: privateKeyToAccount(key.privateKey),
        client: chain.client(),
        maxDeposit: DEPOSIT,
      });
      payers.push({ index, address: key.address.toLowerCase(), manager, calls: [], pending: null });
    }
    await Promise.all(
      payers.map(async (p) => {
        const call = { id: `chdrill-${p.index}-0`, n: 0, instance: 'instance 0', status: null };
        p.calls.push(call);
        await payCall(p, cluster.instances[0].url, call);
        if (call.status !== 200) throw new Error(`payer ${p.index} could not open: ${JSON.stringify(call)}`);
        p.channelId = p.manager.channelId.toLowerCase();
      }),
    );

    const rows = [];
    const counted = new Set(); // calls judged in an earlier round
    const killed = new Set(); // calls a kill caught on its instance, so far
    for (let round = 1; round <= rounds; round++) {
      const start = Date.now();
      const on = (i) => payers.filter((p) => p.index % 2 === i);
      const loads = cluster.instances.map((inst, i) => loadOn(inst, on(i)));
      await sleep(between(1500, 3000));
      const victim = between(0, 2);
      // The victim's payers' calls in flight as it is killed: the only ones that may be charged and not delivered
      // (taken before the kill: once it is dead, their loops move on to their next call).
      for (const p of on(victim)) if (p.pending) killed.add(p.pending.id);
      await cluster.kill(victim);
      await loads[victim].stop();
      await sleep(between(100, 500));
      const back = await cluster.restart(victim, { replace });
      loads[victim] = loadOn(back, on(victim));
      await sleep(between(500, 1000));
      await Promise.all(loads.map((l) => l.stop()));
      const holdsOpen = await holdsSwept(db, Date.now() + (HOLD_TTL_SECONDS + 20) * 1000);

      const calls = payers.flatMap((p) => p.calls.map((c) => ({ ...c, payer: p })));
      const mine = calls.filter((c) => !counted.has(c.id));
      for (const c of mine) counted.add(c.id);
      const { channels, usage } = await books(db);
      const charged = new Map();
      const twice = [];
      for (const u of usage.filter((r) => r.charged_micro_usd > 0)) {
        if (charged.has(u.request_id)) twice.push(u.request_id);
        charged.set(u.request_id, u.charged_micro_usd);
      }
      const delivered = calls.filter((c) => c.status === 200);
      const wrongCharge = delivered.filter((c) => charged.get(c.id) !== c.cost).map((c) => c.id);
      const undeliveredCharged = calls.filter((c) => c.status !== 200 && charged.has(c.id));
      const unexplained = undeliveredCharged.filter((c) => !killed.has(c.id)).map((c) => c.id);
      const sent = new Set(calls.map((c) => c.id));
      const unknown = [...charged.keys()].filter((id) => !sent.has(id));
      const failed = mine
        .filter((c) => c.status >= 500)
        .map((c) => ({ id: c.id, status: c.status, code: c.code }));
      // Per channel: its spend is what the usage records charged its payer.
      const channelsOff = payers
        .map((p) => {
          const row = channels.find((c) => c.id === p.channelId);
          const did = `did:pkh:eip155:${chain.chainId}:${p.address}`;
          const usageCharged = usage
            .filter((u) => u.payer === did)
            .reduce((a, u) => a + u.charged_micro_usd, 0);
          return { channel: p.channelId, spent: row?.spent, usageCharged, inFlight: row?.in_flight };
        })
        .filter((c) => c.spent !== c.usageCharged);
      const sum = (list) => list.reduce((a, c) => a + (c.cost ?? charged.get(c.id) ?? 0), 0);
      const deliveredTotal = sum(delivered);
      const chargedTotal = [...charged.values()].reduce((a, v) => a + v, 0);
      const spentTotal = channels.reduce((a, c) => a + c.spent, 0);
      const row = {
        rail: 'channel',
        round,
        killed: `instance ${victim}`,
        calls: mine.length,
        delivered: mine.filter((c) => c.status === 200).length,
        cut: mine.filter((c) => c.error).length,
        refused: mine.filter((c) => c.status && c.status !== 200).length,
        killWindow: mine.filter((c) => killed.has(c.id) && charged.has(c.id) && c.status !== 200).length,
        holdsOpen,
        deliveredMicroUsd: deliveredTotal,
        killWindowMicroUsd: sum(undeliveredCharged),
        chargedMicroUsd: chargedTotal,
        spentMicroUsd: spentTotal,
        seconds: Math.round((Date.now() - start) / 1000),
        equal:
          holdsOpen === 0 &&
          twice.length === 0 &&
          wrongCharge.length === 0 &&
          unexplained.length === 0 &&
          unknown.length === 0 &&
          failed.length === 0 &&
          channelsOff.length === 0 &&
          chargedTotal === deliveredTotal + sum(undeliveredCharged) &&
          spentTotal === chargedTotal,
      };
      if (close && round === rounds) {
        const closing = payers.slice(0, 1);
        const badCloses = await closeChannels(closing, db, chain.client().extend(publicActions));
        row.closed = closing.length - badCloses.length;
        if (badCloses.length) {
          row.equal = false;
          row.badCloses = badCloses;
        }
      }
      if (!row.equal) {
        row.unexplained = {
          twice,
          wrongCharge,
          unexplained,
          unknown,
          failed,
          channelsOff,
          badCloses: row.badCloses,
          logged: cluster.logs.flat().filter((l) => l.trim() !== '' && !l.startsWith('kasir rail')),
        };
      }
      rows.push(row);
      log(
        `channel round ${round}: killed ${row.killed}; ${row.calls} calls, delivered ${row.delivered}, cut ` +
          `${row.cut}, refused ${row.refused}, charged undelivered in the kill window ${row.killWindow}; holds open ` +
          `${row.holdsOpen}; delivered ${row.deliveredMicroUsd} + kill window ${row.killWindowMicroUsd} µ$ vs ` +
          `charged ${row.chargedMicroUsd}, channels spent ${row.spentMicroUsd}` +
          `${row.closed === undefined ? '' : `; ${row.closed} closed on chain exactly`}: ` +
          `${row.equal ? 'equal' : 'NOT EQUAL'} (${row.seconds} s)`,
      );
      if (row.unexplained) log(`not balanced: ${JSON.stringify(row.unexplained)}`);
    }
    await cluster.stop();
    return rows;
  });
}

/** The drill's rows as a table. */
export function printChannels(rows) {
  printRounds(`channel: ${rows.length} rounds`, rows, [
    ['calls', (r) => r.calls],
    ['delivered', (r) => r.delivered],
    ['cut', (r) => r.cut],
    ['kill window', (r) => r.killWindow],
    ['holds open', (r) => r.holdsOpen],
    [
      'delivered + kill window = charged = spent (µ$, all rounds)',
      (r) =>
        `${r.equal ? 'yes' : 'NO'} (${r.deliveredMicroUsd} + ${r.killWindowMicroUsd} / ${r.chargedMicroUsd} / ${r.spentMicroUsd})`,
    ],
  ]);
}

if (isMain(import.meta.url)) {
  const rows = await runChannelDrill({
    rounds: Number(arg('rounds', 5)),
    payers: Number(arg('payers', 6)),
    replace: process.argv.includes('--replace'),
    close: process.argv.includes('--close'),
  });
  printChannels(rows);
  process.exitCode = rows.every((r) => r.equal) ? 0 : 1;
}
