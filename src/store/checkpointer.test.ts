// The SQLite WAL checkpointed by a thread of its own: the server's connection never checkpoints in its commits, the
// thread copies the log into the database file, and the connection takes checkpoints back once the thread is gone.
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { AUTOCHECKPOINT_PAGES, startCheckpointer } from './checkpointer.js';
import { openDb } from './db.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

async function fileDb() {
  const dir = mkdtempSync(path.join(tmpdir(), 'kasir-checkpoint-'));
  dirs.push(dir);
  const file = path.join(dir, 'kasir.db');
  const db = await openDb({ kind: 'sqlite', file });
  if (db.kind !== 'sqlite') throw new Error('expected SQLite');
  return { db, file };
}

/** ~4 MB of rows written in commits of 100, as paid calls' batches are. */
function writeRows(sqlite: import('better-sqlite3').Database) {
  sqlite.exec('CREATE TABLE filler (id INTEGER PRIMARY KEY, text TEXT NOT NULL)');
  const insert = sqlite.prepare('INSERT INTO filler (text) VALUES (?)');
  const batch = sqlite.transaction((n: number) => {
    for (let i = 0; i < n; i++) insert.run('x'.repeat(400));
  });
  for (let i = 0; i < 100; i++) batch(100);
}

const waitFor = async (what: () => boolean, ms = 10_000) => {
  const until = Date.now() + ms;
  while (!what()) {
    if (Date.now() > until) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 50));
  }
};

describe('the WAL checkpointer', () => {
  it("copies the log into the database file on its thread; the server's connection never checkpoints", async () => {
    const { db, file } = await fileDb();
    try {
      expect(db.checkpointer?.running).toBe(true);
      expect(db.sqlite.pragma('wal_autocheckpoint', { simple: true })).toBe(0);
      const before = statSync(file).size;
      writeRows(db.sqlite);
      // ~4 MB went to the WAL: with no checkpoint, the database file would not have grown.
      await waitFor(
        () => db.checkpointer?.last?.kind === 'checkpointed' && statSync(file).size > before + 3_000_000,
      );
      const last = db.checkpointer?.last;
      expect(last).toMatchObject({ kind: 'checkpointed' });
      if (last?.kind === 'checkpointed') expect(last.copiedFrames).toBe(last.walFrames);
      expect(db.sqlite.prepare('SELECT count(*) AS n FROM filler').get()).toEqual({ n: 10_000 });
    } finally {
      await db.close();
    }
  });

  it('hands checkpoints back to the connection once stopped, and keeps no thread for a database in memory', async () => {
    const { db } = await fileDb();
    try {
      await db.checkpointer?.stop();
      expect(db.checkpointer?.running).toBe(false);
      expect(db.sqlite.pragma('wal_autocheckpoint', { simple: true })).toBe(AUTOCHECKPOINT_PAGES);
    } finally {
      await db.close();
    }
    const memory = await openDb({ kind: 'sqlite', file: ':memory:' });
    expect(memory.kind === 'sqlite' && memory.checkpointer).toBe(null);
    await memory.close();
  });

  it('hands checkpoints back to the connection when the thread cannot open the file', async () => {
    const { db } = await fileDb();
    try {
      await db.checkpointer?.stop();
      const missing = path.join(path.dirname(db.sqlite.name), 'no-such.db');
      const orphan = startCheckpointer(db.sqlite, missing, 50);
      expect(db.sqlite.pragma('wal_autocheckpoint', { simple: true })).toBe(0);
      await waitFor(() => !orphan.running);
      expect(db.sqlite.pragma('wal_autocheckpoint', { simple: true })).toBe(AUTOCHECKPOINT_PAGES);
    } finally {
      await db.close();
    }
  });
});
