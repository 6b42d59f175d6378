/**
 * The spending caps of an MCP bridge session, set by its user: the most one call may cost and the most the whole
 * session may spend, in integer micro-USD. A call above what is left is refused before anything is paid.
 */
export interface CapSettings {
  perCallMicroUsd?: number;
  sessionMicroUsd?: number;
}

export class SpendingCaps {
  private spentMicroUsd = 0;

  constructor(private readonly caps: CapSettings) {}

  get spent(): number {
    return this.spentMicroUsd;
  }

  /** The most the next call may cost, or undefined when no cap is set. */
  limit(): number | undefined {
    const left =
      this.caps.sessionMicroUsd === undefined
        ? undefined
        : Math.max(0, this.caps.sessionMicroUsd - this.spentMicroUsd);
    const per = this.caps.perCallMicroUsd;
    if (left === undefined) return per;
    return per === undefined ? left : Math.min(per, left);
  }

  /** Why a call costing `microUsd` may not be paid, or undefined when it may. */
  refusal(microUsd: number): string | undefined {
    const per = this.caps.perCallMicroUsd;
    if (per !== undefined && microUsd > per)
      return `the call costs ${microUsd} micro-USD, above the per-call cap of ${per}; nothing was paid`;
    const session = this.caps.sessionMicroUsd;
    if (session !== undefined && this.spentMicroUsd + microUsd > session)
      return `the call costs ${microUsd} micro-USD and this session has ${session - this.spentMicroUsd} of its ${session} left; nothing was paid`;
    return undefined;
  }

  record(microUsd: number): void {
    this.spentMicroUsd += microUsd;
  }
}
