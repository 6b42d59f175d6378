/** One round of the async media jobs drill: the jobs accepted against what they ended as and what was charged. */
export interface JobsRound {
  rail: 'jobs';
  round: number;
  killed: string;
  /** Jobs accepted (202). */
  submitted: number;
  /** Submits refused, and submits that got no answer. */
  refused: number;
  cutOff: number;
  succeeded: number;
  failed: number;
  /** Jobs with a charge in the ledger. */
  charged: number;
  /** Jobs the killed instance accepted that another instance finished and settled. */
  adopted: number;
  /** Jobs fal was sent. */
  submits: number;
  chargedMicroUsd: number;
  quotedMicroUsd: number;
  spentMicroUsd: number;
  /** Every job ended, succeeded ones delivered and charged once at their quote, failed ones not, balance fell by it. */
  equal: boolean;
  unexplained?: { problems: unknown[]; logged: string[] };
}

export function runJobsDrill(options?: {
  rounds?: number;
  /** Jobs submitted per round. */
  jobs?: number;
  /** The killed instance comes back on a new, empty data folder (the default) instead of its own. */
  replace?: boolean;
  log?: (line: string) => void;
  /** A test's signal: when it aborts, the drill stops its processes and rejects. */
  signal?: AbortSignal;
}): Promise<JobsRound[]>;

export function printJobs(rows: JobsRound[]): void;
