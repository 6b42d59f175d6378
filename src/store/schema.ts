/** Table types of the kasir database, shared by SQLite and PostgreSQL. Money columns are integer micro-USD. */
import type { Generated } from 'kysely';

export interface MediaObjectTable {
  key: string;
  content_type: string;
  size_bytes: number;
  etag: string;
  created_at: string;
}

export interface Database {
  media_objects: MediaObjectTable;
}
