/** Periodic clean-up after crashes: replays stopped instances' charge journals, releases holds left open, drops expired idempotency records. */
import type { Logger } from '../http/logger.js';
import { sweepExpiredHolds } from '../ledger/books.js';
import { releaseStaleWalletPayments } from '../ledger/wallet-payments.js';
import type { Db } from '../store/db.js';
import { sweepIdempotency } from './idempotency.js';

const REPLAY_WINDOW_SECONDS = 24 * 3600;

export async function sweepOnce(db: Db, holdTtlSeconds: number) {
  const holds = await sweepExpiredHolds(db);
  const idempotency = await sweepIdempotency(db, {
    runningMaxAgeSeconds: holdTtlSeconds,
    doneMaxAgeSeconds: REPLAY_WINDOW_SECONDS,
  });
  // A wallet payment left locked by an instance that died mid-call may be sent again (its chain refuses it if it did
  // settle just before).
  const walletPaymentsReleased = await releaseStaleWalletPayments(
    db,
    new Date(Date.now() - holdTtlSeconds * 1000).toISOString(),
  );
  return { ...holds, idempotencyRecordsDropped: idempotency, walletPaymentsReleased };
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
      .then(() => sweepOnce(db, holdTtlSeconds))
      .then((r) => {
        if (r.released || r.idempotencyRecordsDropped || r.walletPaymentsReleased)
          log.info(r, 'swept stale holds and records');
      })
      .catch((err) => log.error({ err }, 'sweep failed'));
  void run();
  if (intervalSeconds <= 0) return () => {};
  const timer = setInterval(run, intervalSeconds * 1000);
  timer.unref();
  return () => clearInterval(timer);
}
