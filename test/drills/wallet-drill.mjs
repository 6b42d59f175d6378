// What the wallet rails' drills share (x402.mjs, mpp.mjs): concurrent paid calls, each with its own payment, on two
// kasir instances sharing one PostgreSQL database; one of them `kill -9`ed at a random moment each round and brought
// back (with `replace`: on a new, empty data folder). Then every payment whose answer was not delivered is sent
// again, the same payment header and body, to the instances alive, until it yields the answer or a final refusal.
//
// A round balances when, on chain and in the answers:
// - every payment settled on chain yielded its answer, delivered at once or retrieved by sending the same payment again;
// - a payment refused on retry was never settled on chain;
// - every answer names a settlement that moved exactly its payment to the pay-to, and no settlement pays two answers;
// - the pay-to received exactly the settled payments' amounts (nothing settled twice, nothing unaccounted for), and
//   kasir's usage records charge each settled payment once.
//
// A rail's drill gives `rail`: { name, route, env, body(n), pay(challenge, body) → payment | null, receiptOf(res) →
// settlement id | null, waitOn(res) (a refusal that is not final: its call still running), settledOnChain(payment),
// pays(payment, settlement) (its settlement moved exactly this payment), received() (what the pay-to got so far) }.
import { Agent, request } from 'undici';
import { between, openDrillDb, printRounds, sleep, startCluster } from './harness.mjs';

/** The shortest hold TTL kasir takes: how long a dead instance's payment lock stays before a sweeper lets it go. */
export const HOLD_TTL_SECONDS = 30;

/** Sends one request; its status, headers and whole body, or the error that cut it (the instance died). */
export async function send(url, { body, headers = {}, dispatcher }) {
  try {
    const res = await request(url, {
      method: 'POST',
      body,
      headers: { 'content-type': 'application/json', ...headers },
      dispatcher,
    });
    const text = await res.body.text();
    return { status: res.statusCode, headers: res.headers, text, error: null };
  } catch (err) {
    return { status: 0, headers: {}, text: '', error: String(err?.code ?? err?.message ?? err) };
  }
}

/** The error code of a refusal, if the body is one. */
export const errorCode = (res) => {
  try {
    return JSON.parse(res.text).error?.code ?? null;
  } catch {
    return null;
  }
};

/** Runs a wallet rail's drill on `space` (see withDrill) and returns one row per round. */
export async function runWalletDrill(space, rail, { rounds, connections, replace, log }) {
  const db = await openDrillDb(space.database.url);
  space.atEnd(() => db.close());
  const cluster = await startCluster(space, {
    count: 2,
    env: () => ({
      ...rail.env,
      HOLD_TTL_SECONDS: String(HOLD_TTL_SECONDS),
      SWEEP_INTERVAL_SECONDS: '2',
    }),
  });
  const startReceived = await rail.received();

  /** Every payment sent: its header and body, what its first answer was, and its retries'. */
  const payments = [];
  const stats = { sent: 0 };
  const loadOn = (instance) => {
    let running = true;
    const dispatcher = new Agent({ connections, keepAliveTimeout: 10_000 });
    const url = `${instance.url}${rail.route}`;
    const loop = async () => {
      while (running) {
        const n = ++stats.sent;
        const body = rail.body(n);
        const challenge = await send(url, { body, dispatcher });
        if (challenge.status !== 402) {
          if (challenge.error) await sleep(10);
          continue;
        }
        const payment = await rail.pay(challenge, body);
        if (!payment) break; // the rail's payers are spent
        Object.assign(payment, { n, body, instance: instance.name, retries: [] });
        payments.push(payment);
        payment.first = await send(url, { body, headers: payment.headers, dispatcher });
        payment.settlement = rail.receiptOf(payment.first);
        if (payment.first.error) await sleep(10);
      }
    };
    const loops = Array.from({ length: connections }, loop);
    return {
      stop: async () => {
        running = false;
        await Promise.all(loops);
        await dispatcher.close();
      },
    };
  };

  /**
   * Sends an undelivered payment again, the same headers and body, to the instances alive (in turn), until it yields
   * the answer or a final refusal; a payment whose call its dead instance still holds is refused as in progress until
   * a sweeper lets it go (HOLD_TTL_SECONDS), so that is waited out.
   */
  const retry = async (payment, instances, deadline) => {
    for (let attempt = 0; Date.now() < deadline; attempt++) {
      const inst = instances[attempt % instances.length];
      const res = await send(`${inst.url}${rail.route}`, { body: payment.body, headers: payment.headers });
      const code = errorCode(res);
      const settlement = rail.receiptOf(res);
      payment.retries.push({ instance: inst.name, status: res.status, code, error: res.error });
      if (settlement) {
        payment.settlement = settlement;
        // Its stored answer replayed, or (settled, its answer never stored) made again.
        payment.retrieved = res.headers['idempotent-replayed'] === 'true' ? 'stored' : 'made again';
        return;
      }
      if (res.status !== 0 && !rail.waitOn(res)) {
        payment.refused = code ?? String(res.status);
        return;
      }
      await sleep(res.status === 0 ? 200 : 1000);
    }
  };

  const rows = [];
  const counted = new Set(); // payments judged in an earlier round
  for (let round = 1; round <= rounds; round++) {
    await rail.beforeRound?.(connections);
    const { instances } = cluster;
    const loads = instances.map((inst) => loadOn(inst));
    await sleep(between(1500, 3000));
    const victim = between(0, 2);
    await cluster.kill(victim);
    await loads[victim].stop();
    await sleep(between(100, 500));
    const back = await cluster.restart(victim, { replace });
    loads[victim] = loadOn(back);
    await sleep(between(500, 1000));
    await Promise.all(loads.map((l) => l.stop()));

    const mine = payments.filter((p) => !counted.has(p.n));
    for (const p of mine) counted.add(p.n);
    const undelivered = mine.filter((p) => !p.settlement);
    const deadline = Date.now() + (HOLD_TTL_SECONDS + 20) * 1000;
    await Promise.all(undelivered.map((p) => retry(p, cluster.instances, deadline)));

    // The chain's word on every payment of the round.
    for (const p of mine) p.settled = await rail.settledOnChain(p);
    const settled = mine.filter((p) => p.settled);
    const delivered = mine.filter((p) => p.settlement && !p.retrieved);
    const retrieved = mine.filter((p) => p.retrieved);
    const lost = settled.filter((p) => !p.settlement);
    const answeredUnsettled = mine.filter((p) => p.settlement && !p.settled);
    const unresolved = undelivered.filter((p) => !p.settlement && !p.settled && !p.refused);
    // Each answer's settlement moved exactly its payment to the pay-to; no settlement pays two answers.
    const badReceipts = [];
    const seen = new Set();
    for (const p of mine.filter((q) => q.settlement)) {
      if (seen.has(p.settlement))
        badReceipts.push({ n: p.n, settlement: p.settlement, why: 'pays another answer too' });
      seen.add(p.settlement);
      if (!(await rail.pays(p, p.settlement)))
        badReceipts.push({ n: p.n, settlement: p.settlement, why: 'does not move this payment' });
    }
    const allSettled = payments.filter((p) => p.settled);
    const received = (await rail.received()) - startReceived;
    const owed = allSettled.reduce((a, p) => a + p.amount, 0n);
    const charges = await db.kysely
      .selectFrom('usage_records')
      .select(['tx_id'])
      .where('rail', '=', rail.name)
      .where('charged_micro_usd', '>', 0)
      .execute();
    const chargedIds = new Set(charges.map((c) => c.tx_id));
    const row = {
      rail: rail.name,
      round,
      killed: `instance ${victim}`,
      payments: mine.length,
      settled: settled.length,
      delivered: delivered.length,
      retrieved: retrieved.length,
      retrievedStored: retrieved.filter((p) => p.retrieved === 'stored').length,
      refusedUnsettled: undelivered.filter((p) => !p.settlement && !p.settled).length,
      lost: lost.length,
      chargedTotal: charges.length,
      settledTotal: allSettled.length,
      receivedBaseUnits: received.toString(),
      settledBaseUnits: owed.toString(),
      equal:
        lost.length === 0 &&
        answeredUnsettled.length === 0 &&
        unresolved.length === 0 &&
        badReceipts.length === 0 &&
        received === owed &&
        charges.length === allSettled.length &&
        chargedIds.size === charges.length,
    };
    if (!row.equal) {
      const show = (p) => ({
        n: p.n,
        instance: p.instance,
        first: { status: p.first.status, code: errorCode(p.first), error: p.first.error },
        retries: p.retries,
        settled: p.settled,
      });
      row.unexplained = {
        lost: lost.map(show),
        answeredUnsettled: answeredUnsettled.map(show),
        unresolved: unresolved.map(show),
        badReceipts,
        logged: cluster.logs.flat().filter((l) => l.trim() !== '' && !l.startsWith('kasir rail')),
      };
    }
    rows.push(row);
    log(
      `${rail.name} round ${round}: killed ${row.killed}; ${row.payments} payments, settled on chain ${row.settled}, ` +
        `delivered ${row.delivered}, retrieved by retry ${row.retrieved} (stored ${row.retrievedStored}), ` +
        `refused unsettled ${row.refusedUnsettled}, lost ${row.lost}; pay-to received ${row.receivedBaseUnits} ` +
        `for ${row.settledBaseUnits} settled, charged ${row.chargedTotal} for ${row.settledTotal} settled: ` +
        `${row.equal ? 'equal' : 'NOT EQUAL'}`,
    );
    if (row.unexplained) log(`not balanced: ${JSON.stringify(row.unexplained)}`);
  }
  log(`${rail.name}: ${stats.sent} calls sent`);
  await cluster.stop();
  return rows;
}

/** A wallet drill's rows as a table. */
export function printWallet(name, rows) {
  printRounds(`${name}: ${rows.length} rounds`, rows, [
    ['payments', (r) => r.payments],
    ['settled on chain', (r) => r.settled],
    ['delivered', (r) => r.delivered],
    ['retrieved by retry (stored)', (r) => `${r.retrieved} (${r.retrievedStored})`],
    ['refused, unsettled', (r) => r.refusedUnsettled],
    ['lost', (r) => r.lost],
    [
      'pay-to received = settled',
      (r) => `${r.equal ? 'yes' : 'NO'} (${r.receivedBaseUnits} / ${r.settledBaseUnits})`,
    ],
  ]);
}
