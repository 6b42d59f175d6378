/** The `Retry-After` header (RFC 9110 §10.2.3): delta-seconds or an HTTP date, as milliseconds from now. */

/** Undefined when the header is missing or unreadable. */
export function retryAfterMs(value: string | undefined, now = Date.now()): number | undefined {
  if (!value) return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const at = Date.parse(trimmed);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}
