/**
 * The MPP challenge secrets, kept in the database so every instance (and every restart) issues and verifies the
 * same challenges. The newest unretired secret signs new challenges; older ones keep verifying the challenges they
 * signed until those expire, so a rotation never breaks a challenge in flight.
 */
import { randomBytes } from 'node:crypto';
import { newId, nowIso } from '../../ledger/ids.js';
import type { Db } from '../../store/db.js';

export interface MppSecret {
  id: string;
  secret: string;
}

/** The secrets that verify, newest first; creates the first one when there is none. */
export async function loadSecrets(db: Db): Promise<MppSecret[]> {
  const read = () =>
    db.kysely
      .selectFrom('mpp_secrets')
      .select(['id', 'secret'])
      .where('retired_at', 'is', null)
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .execute();
  const secrets = await read();
  if (secrets.length > 0) return secrets;
  await addSecret(db);
  return read();
}

async function addSecret(db: Db): Promise<string> {
  const id = newId('mps');
  await db.kysely
    .insertInto('mpp_secrets')
    .values({ id, secret: randomBytes(32).toString('base64url'), created_at: nowIso(), retired_at: null })
    .execute();
  return id;
}

/**
 * Starts signing with a new secret. Secrets older than the one it replaces are retired (the replaced one keeps
 * verifying: challenges it signed may still be paid until they expire); instances pick the change up on their next
 * reload.
 */
export async function rotateSecret(db: Db): Promise<string> {
  const current = await loadSecrets(db);
  const id = await addSecret(db);
  const stale = current.slice(1).map((s) => s.id);
  if (stale.length > 0) {
    await db.kysely
      .updateTable('mpp_secrets')
      .set({ retired_at: nowIso() })
      .where('id', 'in', stale)
      .execute();
  }
  return id;
}
