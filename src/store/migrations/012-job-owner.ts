/**
 * Migration 012: who holds a job's lock. `locked_by` names the instance whose lock `locked_until` is, so an instance
 * renews and lets go of its own locks only: one whose lock lapsed (it could not reach the database for a while) and
 * was taken over no longer polls the job beside the instance that took it. Null on a job nobody holds, and on the
 * rows of instances from before this column (they lapse as before).
 */
import type { Kysely, Migration } from 'kysely';
import type { DbKind } from '../db.js';

export function m012JobOwner(_kind: DbKind): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema.alterTable('jobs').addColumn('locked_by', 'varchar(64)').execute();
    },
  };
}
