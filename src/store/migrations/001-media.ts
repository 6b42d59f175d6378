/** Migration 001: metadata of stored media objects (the bytes live in the media store). */
import type { Kysely, Migration } from 'kysely';
import type { DbKind } from '../db.js';

export function m001Media(_kind: DbKind): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('media_objects')
        .addColumn('key', 'varchar(64)', (c) => c.primaryKey())
        .addColumn('content_type', 'varchar(255)', (c) => c.notNull())
        .addColumn('size_bytes', 'bigint', (c) => c.notNull())
        .addColumn('etag', 'varchar(128)', (c) => c.notNull())
        .addColumn('created_at', 'varchar(32)', (c) => c.notNull())
        .execute();
    },
  };
}
