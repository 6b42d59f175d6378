// Rows inserted several to a statement: every row lands once, in order, whatever the count against the chunk.
import SQLite from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { RowInserter } from './sqlite-rows.js';

describe('RowInserter', () => {
  const table = () => {
    const raw = new SQLite(':memory:');
    raw.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, a TEXT, b INTEGER)');
    return { raw, rows: new RowInserter(raw, 't', ['a', 'b']) };
  };
  const values = (n: number, from = 0) =>
    Array.from({ length: n }, (_, i) => [`r${from + i}`, from + i]).flat();

  it.each([0, 1, 31, 32, 33, 64, 70])('inserts %i rows once each, in order', (n) => {
    const { raw, rows } = table();
    rows.insert(values(n));
    expect(raw.prepare('SELECT a, b FROM t ORDER BY id').all()).toEqual(
      Array.from({ length: n }, (_, i) => ({ a: `r${i}`, b: i })),
    );
  });

  it('keeps rows of successive batches apart and in order', () => {
    const { raw, rows } = table();
    rows.insert(values(40));
    rows.insert(values(3, 40));
    expect(raw.prepare('SELECT b FROM t ORDER BY id').pluck().all()).toEqual(
      Array.from({ length: 43 }, (_, i) => i),
    );
  });

  it('refuses values that do not make whole rows, inserting none', () => {
    const { raw, rows } = table();
    expect(() => rows.insert(['r0', 0, 'r1'])).toThrow('3 values do not make rows of 2');
    expect(raw.prepare('SELECT count(*) FROM t').pluck().get()).toBe(0);
  });

  it('rolls back with its transaction when a row of a chunk fails', () => {
    const { raw, rows } = table();
    raw.exec('CREATE UNIQUE INDEX t_a ON t (a)');
    const batch = values(40);
    batch[2 * 35] = 'r3';
    expect(() => raw.transaction(() => rows.insert(batch))()).toThrow(/UNIQUE/);
    expect(raw.prepare('SELECT count(*) FROM t').pluck().get()).toBe(0);
  });

  it('binds the shared columns once for every row, across chunks', () => {
    const raw = new SQLite(':memory:');
    raw.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, a TEXT, b INTEGER, s TEXT, u TEXT)');
    const rows = new RowInserter(raw, 't', ['a', 'b'], ['s', 'u']);
    rows.insert(values(33), { s: 'one', u: null });
    rows.insert(values(2, 33), { s: 'two', u: 'x' });
    const got = raw.prepare('SELECT a, b, s, u FROM t ORDER BY id').all();
    expect(got).toEqual([
      ...Array.from({ length: 33 }, (_, i) => ({ a: `r${i}`, b: i, s: 'one', u: null })),
      { a: 'r33', b: 33, s: 'two', u: 'x' },
      { a: 'r34', b: 34, s: 'two', u: 'x' },
    ]);
  });

  it('refuses rows without their shared values', () => {
    const raw = new SQLite(':memory:');
    raw.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, a TEXT, b INTEGER, s TEXT)');
    const rows = new RowInserter(raw, 't', ['a', 'b'], ['s']);
    expect(() => rows.insert(values(1))).toThrow('no values for s');
    expect(raw.prepare('SELECT count(*) FROM t').pluck().get()).toBe(0);
  });
});
