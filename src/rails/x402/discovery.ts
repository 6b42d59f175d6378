/** The bazaar extension of a 402 (x402's discovery): the route's JSON input and output, built once per offer. */
import { declareDiscoveryExtension } from '@x402/extensions/bazaar';

const built = new Map<string, Record<string, unknown>>();

export function bazaarExtension(
  offerId: string,
  inputSchema: Record<string, unknown>,
): Record<string, unknown> {
  let extension = built.get(offerId);
  if (!extension) {
    extension = declareDiscoveryExtension({
      bodyType: 'json',
      inputSchema,
      output: { example: { model: offerId, costMicroUsd: 0, output: {} } },
    }) as Record<string, unknown>;
    // Every paid route is a POST; the SDK fills the method from its own middleware, which kasir does not use.
    const input = (extension.bazaar as { info?: { input?: Record<string, unknown> } } | undefined)?.info
      ?.input;
    if (input) input.method = 'POST';
    built.set(offerId, extension);
  }
  return extension;
}
