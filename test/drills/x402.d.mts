/** One round of the x402 drill: payments settled on chain against answers delivered or retrieved by retry. */
export interface X402Round {
  rail: 'x402' | 'mpp';
  round: number;
  killed: string;
  /** Payments sent this round (each its own signed authorization). */
  payments: number;
  /** Of those, settled on chain (their authorization used). */
  settled: number;
  /** Answered on the first try. */
  delivered: number;
  /** Answered when the same payment was sent again after the kill. */
  retrieved: number;
  /** Of those, replayed from the stored answer (the rest made again). */
  retrievedStored: number;
  /** Refused on retry and, on chain, never settled. */
  refusedUnsettled: number;
  /** Settled on chain with no answer, delivered or retrieved. */
  lost: number;
  /** Usage records charging a settlement, and payments settled on chain, since the start. */
  chargedTotal: number;
  settledTotal: number;
  receivedBaseUnits: string;
  settledBaseUnits: string;
  equal: boolean;
  unexplained?: Record<string, unknown>;
}

export function runX402Drill(options?: {
  rounds?: number;
  connections?: number;
  replace?: boolean;
  log?: (line: string) => void;
  /** A test's signal: when it aborts, the drill stops its processes and rejects. */
  signal?: AbortSignal;
}): Promise<X402Round[]>;

export function printX402(rows: X402Round[]): void;
