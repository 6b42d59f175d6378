import type { X402Round } from './x402.mjs';

/** One round of the MPP drill: the same figures as the x402 drill's (payments settled on chain by the payers). */
export type MppRound = Omit<X402Round, 'rail'> & { rail: 'mpp' };

export function runMppDrill(options?: {
  rounds?: number;
  connections?: number;
  replace?: boolean;
  log?: (line: string) => void;
  /** A test's signal: when it aborts, the drill stops its processes and rejects. */
  signal?: AbortSignal;
}): Promise<MppRound[]>;

export function printMpp(rows: MppRound[]): void;
