/**
 * The charge journal: a local append-only file in which this instance records, synchronously, each charge the
 * moment before the answer it pays for is handed to the operating system (and each lease or hold the moment before
 * it is opened). Charges
 * reach the database a few milliseconds later, in batches; a process that dies in between leaves them here, and
 * the next instance to start on the same data folder (or the sweeper of one already running) replays the file:
 * every charge whose answer was sent is written exactly once, and the dead instance's leases and holds are
 * released at once instead of after their TTL (see journal-replay.ts).
 *
 * A line is written with one write(2) right before the answer's own write: a process killed at any later instant
 * leaves it in the kernel's page cache, which the file system keeps (a power cut is another matter: no fsync per call, as with
 * SQLite's synchronous=NORMAL). Records whose effect reached the database are dropped from memory; the file is
 * rewritten with only the live ones when it has grown past ROTATE_BYTES, so it stays small.
 *
 * Written here: no library journals charges against an HTTP answer.
 */

import { randomUUID } from 'node:crypto';
import { closeSync, futimesSync, mkdirSync, openSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import { hostname } from 'node:os';
import path from 'node:path';
import { USAGE_COLUMNS, type UsageInsert, WALLET_USAGE_COLUMNS } from './dialect.js';

export type JournalRecord =
  /** A lease about to be opened on an account. */
  | { k: 'lease'; lease: string; account: string }
  /** A call's own hold about to be placed. */
  | { k: 'hold'; hold: string; account: string }
  /** A call served from a lease, charged: its answer is about to leave. */
  | { k: 'charge'; lease: string; account: string; id: string; amount: number; usage: UsageInsert }
  /** A call's own hold, captured: its answer is about to leave. */
  | { k: 'capture'; hold: string; account: string; amount: number; usage: UsageInsert };

/**
 * A charge is journalled on every paid call, so its line is a JSON array (`["c", lease, account, id, amount, ...the
 * usage columns, ...the wallet ones]`) rather than an object: half the bytes, and half the time to write out. Every
 * other record (a lease or hold opened, a hold captured) is a JSON object, and lines written as objects by an
 * earlier version still read.
 */
const LINE_COLUMNS = [...USAGE_COLUMNS, ...WALLET_USAGE_COLUMNS];

const CHARGE_LINE = 'c';

/** A record as one journal line (newline included). */
export function journalLine(record: JournalRecord): string {
  if (record.k !== 'charge') return `${JSON.stringify(record)}\n`;
  const line: unknown[] = [CHARGE_LINE, record.lease, record.account, record.id, record.amount];
  const usage = record.usage;
  for (const column of LINE_COLUMNS) line.push(usage[column] ?? null);
  return `${JSON.stringify(line)}\n`;
}

/** A journal line read back (as journalLine writes it, or an object line); throws on a line cut short. */
export function parseJournalLine(line: string): JournalRecord {
  const value: unknown = JSON.parse(line);
  if (!Array.isArray(value)) return value as JournalRecord;
  if (value[0] !== CHARGE_LINE || value.length !== 5 + LINE_COLUMNS.length)
    throw new Error('not a charge line');
  const usage: Record<string, unknown> = {};
  LINE_COLUMNS.forEach((column, i) => {
    const cell = value[5 + i];
    // A wallet column a charge has none of is left out, as it was in the record journalled.
    if (cell !== null || i < USAGE_COLUMNS.length) usage[column] = cell;
  });
  const [, lease, account, id, amount] = value as [unknown, string, string, string, number];
  return { k: 'charge', lease, account, id, amount, usage: usage as UsageInsert };
}

/** The part of a journal file's name that says which process wrote it. */
export interface JournalOwner {
  host: string;
  pid: number;
  /** Tells apart two processes that had the same pid (a restarted container's first process). */
  nonce: string;
}

const SUFFIX = '.jsonl';
/** Past this size the file is rewritten with only its live records. */
const ROTATE_BYTES = 4 * 1024 * 1024;
/** How often a live journal's modification time is renewed (how other hosts tell it is alive). */
export const HEARTBEAT_MS = 5000;

/** `<host>_<pid>_<nonce>~<part>.jsonl`: the owner, then a part name (a rotation count, or an adopted file's). */
export function journalFileName(owner: JournalOwner, part: string): string {
  return `${owner.host}_${owner.pid}_${owner.nonce}~${part}${SUFFIX}`;
}

export function parseJournalFileName(name: string): (JournalOwner & { part: string }) | null {
  const m = /^(.+)_(\d+)_([a-z0-9]+)~([\w-]+)\.jsonl$/.exec(name);
  if (!m?.[1] || !m[2] || !m[3] || !m[4]) return null;
  return { host: m[1], pid: Number(m[2]), nonce: m[3], part: m[4] };
}

export function thisProcess(): JournalOwner {
  // Host names may hold dots and dashes; underscores separate the fields.
  return {
    host: hostname().replaceAll('_', '-') || 'host',
    pid: process.pid,
    nonce: randomUUID().replaceAll('-', '').slice(0, 12),
  };
}

/** What a record is known by, to drop it once its effect is in the database. */
export const keyOf = (r: JournalRecord): string => {
  switch (r.k) {
    case 'lease':
      return `lease:${r.lease}`;
    case 'hold':
      return `hold:${r.hold}`;
    case 'charge':
      return `charge:${r.id}`;
    case 'capture':
      return `capture:${r.hold}`;
  }
};

/**
 * Where charges are recorded before their answers leave: this file journal (SQLite), or rows in PostgreSQL
 * (pg-journal.ts) when the database is shared. `append` either returns at once, the record written (the file), or
 * a promise the answer must wait for (the row committed).
 */
export interface Journal {
  append(record: JournalRecord): void | Promise<void>;
  settled(kind: JournalRecord['k'], ids: Iterable<string>): void;
  readonly pending: number;
}

export class ChargeJournal implements Journal {
  /** Records whose effect may not be in the database yet, by key: what a rotation copies. */
  private readonly live = new Map<string, JournalRecord>();
  private fd: number;
  private file: string;
  private bytes = 0;
  private rotations = 0;
  private readonly heartbeat: NodeJS.Timeout;

  private constructor(
    readonly dir: string,
    readonly owner: JournalOwner,
  ) {
    mkdirSync(dir, { recursive: true });
    this.file = path.join(dir, journalFileName(owner, '0'));
    this.fd = openSync(this.file, 'a');
    this.heartbeat = setInterval(() => this.touch(), HEARTBEAT_MS);
    this.heartbeat.unref();
  }

  /** Opens a new journal file of this process in `dir` (created if missing). */
  static open(dir: string, owner: JournalOwner = thisProcess()): ChargeJournal {
    return new ChargeJournal(dir, owner);
  }

  /** Writes one record, synchronously: when this returns, a process killed at once still leaves it in the file. */
  append(record: JournalRecord): void {
    this.bytes += writeSync(this.fd, journalLine(record));
    this.live.set(keyOf(record), record);
    if (this.bytes > ROTATE_BYTES) this.rotate();
  }

  /** The effect of these records is in the database (or was undone): they need no replay. */
  settled(kind: JournalRecord['k'], ids: Iterable<string>): void {
    for (const id of ids) this.live.delete(`${kind}:${id}`);
  }

  /** How many records still wait for the database. */
  get pending(): number {
    return this.live.size;
  }

  /**
   * Closes the file at shutdown: deleted when every record reached the database, else kept for the next start to
   * replay.
   */
  close(): void {
    clearInterval(this.heartbeat);
    closeSync(this.fd);
    if (this.live.size === 0) unlinkSync(this.file);
  }

  /** Rewrites the journal as a new file holding only the live records, then removes the old one. */
  private rotate(): void {
    this.rotations++;
    const next = path.join(this.dir, journalFileName(this.owner, String(this.rotations)));
    const tmp = `${next}.tmp`;
    const fd = openSync(tmp, 'w');
    let bytes = 0;
    for (const record of this.live.values()) bytes += writeSync(fd, journalLine(record));
    // Renamed into place only once whole: a replay that finds both files applies each record once.
    renameSync(tmp, next);
    closeSync(this.fd);
    unlinkSync(this.file);
    this.fd = fd;
    this.file = next;
    this.bytes = bytes;
  }

  private touch(): void {
    const now = new Date();
    try {
      futimesSync(this.fd, now, now);
    } catch {
      // A failed touch only makes the file look older to other hosts; the next one will do.
    }
  }
}
