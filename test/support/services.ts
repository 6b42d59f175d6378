// Locates the PostgreSQL, Redis and S3-compatible server used by tests. With CI=true all three are mandatory: a test
// that needs one fails instead of skipping (or, for S3, instead of falling back to the s3rver emulator).
import net from 'node:net';
import pg from 'pg';

export const PG_ADMIN_URL = process.env.TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
export const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
/** A real S3-compatible server (CI runs Ceph's RADOS Gateway there, `.ci/s3-server`) and its test user's keys. */
export const S3_URL = process.env.TEST_S3_URL ?? 'http://127.0.0.1:7480';
export const S3_ACCESS_KEY = process.env.TEST_S3_ACCESS_KEY ?? 'KASIRCITESTACCESSKEY';
export const S3_SECRET_KEY = process.env.TEST_S3_SECRET_KEY ?? 'kasir-ci-test-secret-key-not-a-secret';
export const IN_CI = process.env.CI === 'true';

function reachable(url: string): Promise<boolean> {
  const u = new URL(url);
  return new Promise((resolve) => {
    const socket = net.connect({ host: u.hostname, port: Number(u.port) }, () => {
      socket.destroy();
      resolve(true);
    });
    socket.on('error', () => resolve(false));
    socket.setTimeout(1000, () => {
      socket.destroy();
      resolve(false);
    });
  });
}

/** True when the service answers; in CI an unreachable service is an error, not a skip. */
export async function serviceAvailable(name: 'postgres' | 'redis' | 's3'): Promise<boolean> {
  const ok = await reachable(name === 'postgres' ? PG_ADMIN_URL : name === 'redis' ? REDIS_URL : S3_URL);
  if (!ok && IN_CI) throw new Error(`${name} is required when CI=true but is not reachable`);
  return ok;
}

export const postgresUp = await serviceAvailable('postgres');
export const redisUp = await serviceAvailable('redis');

/** Creates an empty PostgreSQL database and returns its URL and a function that drops it. */
export async function freshPostgres(): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `kasir_t_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`;
  const admin = new pg.Client({ connectionString: PG_ADMIN_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(PG_ADMIN_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      const c = new pg.Client({ connectionString: PG_ADMIN_URL });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
    },
  };
}
