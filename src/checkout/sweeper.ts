/**
 * Periodic clean-up after crashes: replays stopped instances' charge journals, releases holds left open (the prepaid
 * books' and payment channels'), drops expired idempotency records.
 */
import type { Logger } from '../http/logger.js';
import { sweepExpiredHolds } from '../ledger/books.js';
import { releaseStaleWalletPayments } from '../ledger/wallet-payments.js';
import { sweepChannelHolds } from '../rails/channel/holds.js';
import type { Db } from '../store/db.js';
import { sweepIdempotency } from './idempotency.js';

const REPLAY_WINDOW_SECONDS = 24 * 3600;

/** Sweeps once as of `now`; each channel hold given back is logged at warn on `log` (the call's money, no secret). */
export async function sweepOnce(db: Db, holdTtlSeconds: number, options: { now?: Date; log?: Logger } = {}) {
  const now = options.now ?? new Date();
  const holds = await sweepExpiredHolds(db, now);
  const idempotency = await sweepIdempotency(
    db,
    { runningMaxAgeSeconds: holdTtlSeconds, doneMaxAgeSeconds: REPLAY_WINDOW_SECONDS },
    now,
  );
  // A wallet payment left locked by an instance that died mid-call may be sent again (its chain refuses it if it did
  // settle just before).
  const walletPaymentsReleased = await releaseStaleWalletPayments(
    db,
    new Date(now.getTime() - holdTtlSeconds * 1000).toISOString(),
  );
  // A call on a payment channel whose process died: its share goes back to the channel, which can then close.
  const channelHolds = await sweepChannelHolds(db, now);
  for (const hold of channelHolds)
    options.log?.warn(
      { hold: hold.id, channel: hold.channelId, amount: hold.amount, expiredAt: hold.expiredAt },
      'released a payment-channel hold its call left (the call did not end in time)',
    );
  return {
    ...holds,
    idempotencyRecordsDropped: idempotency,
    walletPaymentsReleased,
    channelHoldsReleased: channelHolds.length,
  };
}

/**
 * Sweeps now and then every `intervalSeconds` (0 = only now), each time after `replay` (the charge journals of
 * stopped instances sharing the data folder); returns a function that stops it.
 */
export function startSweeper(
  db: Db,
  log: Logger,
  holdTtlSeconds: number,
  intervalSeconds: number,
  replay: () => Promise<void> = async () => {},
): () => void {
  const run = () =>
    replay()
      .then(() => sweepOnce(db, holdTtlSeconds, { log }))
      .then((r) => {
        if (r.released || r.idempotencyRecordsDropped || r.walletPaymentsReleased || r.channelHoldsReleased)
          log.info(r, 'swept stale holds and records');
      })
      .catch((err) => log.error({ err }, 'sweep failed'));
  void run();
  if (intervalSeconds <= 0) return () => {};
  const timer = setInterval(run, intervalSeconds * 1000);
  timer.unref();
  return () => clearInterval(timer);
}
