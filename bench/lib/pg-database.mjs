// A scratch PostgreSQL database for a benchmark: created on the server TEST_POSTGRES_URL names (the local one by
// default), dropped with `drop()`.
import pg from 'pg';

export const pgAdminUrl = process.env.TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

async function admin(text) {
  const client = new pg.Client({ connectionString: pgAdminUrl });
  await client.connect();
  try {
    await client.query(text);
  } finally {
    await client.end();
  }
}

/** Creates a fresh database named `<prefix>_<unique>`; rejects when the server cannot be reached. */
export async function scratchDatabase(prefix) {
  const name = `${prefix}_${Date.now().toString(36)}_${process.pid}`;
  await admin(`CREATE DATABASE ${name}`);
  const url = Object.assign(new URL(pgAdminUrl), { pathname: `/${name}` }).toString();
  return { url, drop: () => admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) };
}
