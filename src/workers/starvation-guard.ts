/**
 * Keeps worker threads under SCHED_IDLE from starving. Such a thread runs only on CPU time no normal thread wants,
 * which keeps paid calls' latency while cards and faces render; but on a machine whose cores other processes keep
 * busy it may get none at all, and its tasks would wait without end. When tasks are in flight and none has finished
 * for `graceMs`, the pool's threads go back to the normal policy at nice 10 (a small share, but a share); once the
 * pool has nothing in flight they return to SCHED_IDLE.
 *
 * Written here: no pool library watches its threads' scheduling policy.
 */

/** Changes one thread's policy: SCHED_IDLE (`idle`) or the normal one at nice 10; resolves false if it could not. */
export type SetThreadPolicy = (tid: number, idle: boolean) => Promise<boolean>;

export class StarvationGuard {
  private readonly tids = new Set<number>();
  private busy = 0;
  private lastProgress = 0;
  private timer: NodeJS.Timeout | undefined;
  private isLifted = false;

  constructor(
    private readonly graceMs: number,
    private readonly setPolicy: SetThreadPolicy,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** The threads are under the normal policy for now. */
  get lifted(): boolean {
    return this.isLifted;
  }

  /** A thread of the pool that now runs under SCHED_IDLE. */
  adopt(tid: number): void {
    this.tids.add(tid);
    if (this.isLifted) this.apply([tid], false);
  }

  /** A task was handed to the pool. */
  started(): void {
    if (this.busy++ > 0) return;
    this.lastProgress = this.now();
    this.arm(this.graceMs);
  }

  /** A task the pool was handed has ended. */
  finished(): void {
    this.lastProgress = this.now();
    if (--this.busy > 0) return;
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.isLifted) {
      this.isLifted = false;
      this.apply([...this.tids], true);
    }
  }

  private arm(ms: number): void {
    this.timer = setTimeout(() => this.check(), ms);
    this.timer.unref();
  }

  private check(): void {
    this.timer = undefined;
    if (this.busy === 0 || this.isLifted) return;
    const quiet = this.now() - this.lastProgress;
    if (quiet < this.graceMs) {
      this.arm(this.graceMs - quiet);
      return;
    }
    this.isLifted = true;
    this.apply([...this.tids], false);
  }

  private apply(tids: number[], idle: boolean): void {
    for (const tid of tids) {
      void this.setPolicy(tid, idle).then((done) => {
        // A thread that exited (the pool ends idle ones) is forgotten.
        if (!done) this.tids.delete(tid);
      });
    }
  }
}
