/** Shared OpenAPI pieces: the error body schema and the standard error responses each route declares. */
import { z } from '@hono/zod-openapi';

export const ErrorSchema = z
  .object({
    error: z.object({
      code: z.string().openapi({ example: 'invalid_input' }),
      message: z.string(),
      details: z.unknown().optional(),
    }),
  })
  .openapi('Error');

const errorResponse = (description: string) => ({
  description,
  content: { 'application/json': { schema: ErrorSchema } },
});

/** Error responses by status, to spread into a route's `responses`. */
export const errors = {
  400: errorResponse('Malformed JSON or invalid input; `details` lists each bad field'),
  401: errorResponse('Missing, unknown or revoked key'),
  402: errorResponse('Payment required or refused; the body lists the price and every payable rail'),
  404: errorResponse('Unknown route, model or object'),
  409: errorResponse('Conflict: idempotency key reused with another body, or still running'),
  413: errorResponse('Body too large'),
  415: errorResponse('Unsupported content type'),
  429: errorResponse('Rate limited; see Retry-After'),
  502: errorResponse('Upstream failed (nothing charged)'),
  503: errorResponse(
    'Not configured or unavailable, or busy (`overloaded`, see Retry-After; nothing charged)',
  ),
  504: errorResponse('Upstream timed out (nothing charged)'),
} as const;

export function pickErrors<K extends keyof typeof errors>(...codes: K[]): Pick<typeof errors, K> {
  return Object.fromEntries(codes.map((c) => [c, errors[c]])) as Pick<typeof errors, K>;
}

/** Keywords of kasir's input schemas that are not OpenAPI's (validation annotations). */
const NOT_OPENAPI = new Set(['errorMessage', 'fileRef', 'maxTotalChars']);

/**
 * An input JSON Schema (a catalog entry's) as OpenAPI query parameters: one per property, with its description and
 * first example lifted out, and required as the schema says.
 */
export function queryParameters(input: Record<string, unknown>) {
  const properties = (input.properties ?? {}) as Record<string, Record<string, unknown>>;
  const required = new Set((input.required as string[] | undefined) ?? []);
  return Object.entries(properties).map(([name, prop]) => {
    const { description, examples, ...rest } = prop;
    const schema = Object.fromEntries(Object.entries(rest).filter(([k]) => !NOT_OPENAPI.has(k)));
    return {
      name,
      in: 'query' as const,
      required: required.has(name),
      ...(typeof description === 'string' ? { description } : {}),
      ...(Array.isArray(examples) && examples.length > 0 ? { example: examples[0] } : {}),
      schema,
    };
  });
}
