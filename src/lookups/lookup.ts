/**
 * The free-lookup port: each lookup of `GET /v1/tools/{name}` is one module (`lookups/<name>-lookup.ts`) beside its
 * domain logic. Its catalog entry (catalog/data/lookups.json) states its input schema and the free price; the
 * checkout validates the query against that schema and asks no payment; a lookup only answers.
 */
import type { z } from '@hono/zod-openapi';

export interface Lookup {
  /** The answer (its shape and what it is), for the API reference. */
  answer: { schema: z.ZodType; description: string };
  /** The error statuses it answers besides 429 (always 400; 404 for a code that names nothing). */
  errors: ReadonlyArray<400 | 404>;
  /**
   * Answers one validated call: its query parameters, coerced to the schema's types with its defaults applied.
   * Throws an ApiError (a 400 naming the field, a 404) for input the schema could not catch.
   */
  run(input: Record<string, unknown>): Record<string, unknown>;
}
