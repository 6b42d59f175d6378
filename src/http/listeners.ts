/**
 * The listeners a call registers for one event (the caller hanging up, a stream's caller leaving), called in the
 * order they were added, and forgotten when the call is over.
 *
 * Links of a class rather than an array literal: V8 tracks each literal's allocation site, and once most of a site's
 * objects outlived a scavenge it allocates all its later objects in the old generation, for the life of the process.
 * A holder there that still points to a finished call's listener keeps, through the listener's closure, the whole
 * call alive until the next full collection, and each scavenge promotes it. So holders clear() at the end of a call.
 */
class Link {
  next: Link | undefined = undefined;
  constructor(readonly listener: () => void) {}
}

export class Listeners {
  private head: Link | undefined = undefined;
  private tail: Link | undefined = undefined;

  add(listener: () => void): void {
    const link = new Link(listener);
    if (this.tail) this.tail.next = link;
    else this.head = link;
    this.tail = link;
  }

  /** Calls every listener, in the order they were added. */
  callAll(): void {
    for (let link = this.head; link; link = link.next) link.listener();
  }

  /** Forgets every listener: wherever V8 put this holder, it then points to nothing of the call. */
  clear(): void {
    this.head = undefined;
    this.tail = undefined;
  }
}
