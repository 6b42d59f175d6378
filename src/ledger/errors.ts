/** Expected outcomes of ledger operations that callers turn into API errors. */

export class InsufficientBalanceError extends Error {
  constructor(
    readonly needed: number,
    readonly available: number,
    /** The account's balance when refused (available = balance − held). */
    readonly balance: number,
  ) {
    super(`insufficient balance: needs ${needed} micro-USD, ${available} available`);
    this.name = 'InsufficientBalanceError';
  }
  get shortfall(): number {
    return this.needed - this.available;
  }
}

export class SpendCapExceededError extends Error {
  constructor(
    readonly needed: number,
    readonly remaining: number,
  ) {
    super(`key spend cap reached: needs ${needed} micro-USD, ${remaining} left under the cap`);
    this.name = 'SpendCapExceededError';
  }
}

export class UnknownAccountError extends Error {
  constructor(readonly accountId: string) {
    super(`no account ${accountId}`);
    this.name = 'UnknownAccountError';
  }
}

/** A lease was settled under a running instance (the sweeper took it for a crashed one): take a new one. */
export class LeaseClosedError extends Error {
  constructor(readonly leaseId: string) {
    super(`lease ${leaseId} is no longer open`);
    this.name = 'LeaseClosedError';
  }
}
