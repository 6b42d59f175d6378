/**
 * Lowers the calling worker thread's CPU priority below the event loop's, so that when the cores are short the calls
 * the event loop answers come first: nice 10, and with WORKER_PRIORITY=idle the SCHED_IDLE policy on Linux, under
 * which the kernel preempts the thread the moment a normal thread (the event loop, libuv's pool) wakes, where a nice
 * value only shortens its share and still lets it finish its time slice first (a millisecond or more, added to every
 * call waiting behind it). Node has no call for a thread's scheduling policy, so the thread names itself (its id from
 * /proc/thread-self) to util-linux's `chrt`, which Debian ships in every image; where that is not possible the
 * thread keeps the nice value.
 */
import { execFile } from 'node:child_process';
import { existsSync, readFileSync, readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';

/** The nice value a thread keeps where SCHED_IDLE cannot be had (Linux keeps one per thread; 0 is the event loop's). */
const WORKER_NICE = 10;

/** The key of the message in which a worker thread under SCHED_IDLE tells the pool its kernel id. */
export const IDLE_THREAD = 'kasirIdleThread';

/** This thread's kernel id on Linux (`<pid>/task/<tid>`), or undefined elsewhere. */
export function threadId(): number | undefined {
  try {
    const tid = Number(readlinkSync('/proc/thread-self').split('/').at(-1));
    return Number.isInteger(tid) && tid > 0 ? tid : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Lowers this thread's priority: nice 10 at once, then (with `idle`) SCHED_IDLE once `chrt` has run. Resolves with
 * the thread's id if it is now under SCHED_IDLE (what the pool's starvation guard needs to lift it), else undefined.
 * Never throws: a platform that refuses either leaves the thread at the priority it has.
 */
export async function lowerThreadPriority(idle: boolean): Promise<number | undefined> {
  try {
    setPriority(0, WORKER_NICE);
  } catch {
    // Not every platform lets a thread lower its own priority.
  }
  const tid = idle ? threadId() : undefined;
  if (tid === undefined) return undefined;
  return (await setThreadPolicy(tid, true)) ? tid : undefined;
}

/**
 * Puts thread `tid` of this process under SCHED_IDLE (`idle`) or back under the normal policy at nice 10. Only a
 * thread still listed in /proc/self/task is touched (an id of a thread that exited may be reused by another
 * process's). Resolves false where that cannot be done.
 */
export function setThreadPolicy(tid: number, idle: boolean): Promise<boolean> {
  if (!existsSync(`/proc/self/task/${tid}`)) return Promise.resolve(false);
  return new Promise((resolve) => {
    const policy = idle ? ['--idle'] : ['--other'];
    execFile('chrt', [...policy, '--pid', '0', String(tid)], { timeout: 5_000 }, (error) => {
      if (!error && !idle) {
        try {
          setPriority(tid, WORKER_NICE);
        } catch {
          // The normal policy alone already ends the starvation.
        }
      }
      resolve(!error);
    });
  });
}

/** CAP_SYS_NICE's bit in a capability set. */
const CAP_SYS_NICE = 23n;

/**
 * Whether a process with this `/proc/self/status` and `/proc/self/limits` may put a thread it put under SCHED_IDLE
 * back under the normal policy at nice 10. Linux counts leaving SCHED_IDLE as raising a priority: it needs
 * CAP_SYS_NICE or an RLIMIT_NICE of at least 10 (20 − nice), and an unprivileged user has neither by default.
 */
export function idleCanBeLeft(status: string, limits: string): boolean {
  const caps = /^CapEff:\s*([0-9a-fA-F]+)\s*$/m.exec(status)?.[1];
  if (caps && ((BigInt(`0x${caps}`) >> CAP_SYS_NICE) & 1n) === 1n) return true;
  const soft = /^Max nice priority\s+(\S+)/m.exec(limits)?.[1];
  return soft === 'unlimited' || Number(soft) >= 20 - WORKER_NICE;
}

/** idleCanBeLeft for this process (false where /proc cannot be read). */
export function thisProcessCanLeaveIdle(): boolean {
  try {
    return idleCanBeLeft(
      readFileSync('/proc/self/status', 'utf8'),
      readFileSync('/proc/self/limits', 'utf8'),
    );
  } catch {
    return false;
  }
}
