/**
 * The payment-channel variants of the inference routes: `/v1/channels/{id}/infer` and
 * `/v1/channels/{id}/chat/completions`, the same calls as `/v1/infer` and `/v1/chat/completions`, paid only by a
 * voucher of channel `{id}`.
 */
export const CHANNEL_ROUTES = '/v1/channels/';

const VARIANT = /^\/v1\/channels\/([^/]*)\/(?:infer|chat\/completions)$/;

/** What a variant's path names as its channel (lowercase; the voucher's channel must be it), or null for any other path. */
export function channelOfPath(path: string): string | null {
  return VARIANT.exec(path)?.[1]?.toLowerCase() ?? null;
}
