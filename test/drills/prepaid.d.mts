/** One round of the prepaid drill: what callers received against what the ledger charged. */
export interface DrillRound {
  rail: 'prepaid' | 'redis';
  round: number;
  killed: string;
  delivered: number;
  charged: number;
  /** Answers delivered whose call the ledger did not charge. */
  uncharged: number;
  /** Calls charged whose answer was not delivered. */
  undelivered: number;
  /** Of those, so far: calls a kill caught between their journal line and their last write (at most one per kill). */
  killWindow: number;
  deliveredMicroUsd: number;
  spentMicroUsd: number;
  /** Every delivered answer charged, nothing else charged but kill-window calls, balances fell by the charges. */
  equal: boolean;
  /** Of a Redis round: calls refused and failed from the kill on, sent while it was down, limits counting again. */
  refused?: number;
  failed?: number;
  servedWhileDown?: number;
  limitedAgain?: boolean;
  /** Of a round that does not balance: the calls on either side of the difference, and what the instances logged. */
  unexplained?: { notDelivered?: unknown[]; notCharged?: unknown[]; logged: string[] };
}

export function runPrepaidDrill(options?: {
  db?: 'postgres' | 'sqlite';
  rounds?: number;
  connections?: number;
  /** The killed instance comes back on a new, empty data folder instead of its own. */
  replace?: boolean;
  /** 'instance' (kill -9 an instance, the default) or 'redis' (kill -9 the instances' Redis and start it again). */
  chaos?: 'instance' | 'redis';
  log?: (line: string) => void;
  /** A test's signal: when it aborts, the drill stops its processes and rejects. */
  signal?: AbortSignal;
}): Promise<DrillRound[]>;

export function printPrepaid(rows: DrillRound[]): void;
