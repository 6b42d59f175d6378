/** GET /.well-known/x402 in the x402scan convention: the x402-payable resources of this service. */

export interface X402Discovery {
  version: 1;
  resources: string[];
  instructions: string;
}

export function buildWellKnownX402(baseUrl: string, x402Resources: string[]): X402Discovery {
  return {
    version: 1,
    resources: x402Resources.map((p) => `${baseUrl}${p}`),
    instructions:
      x402Resources.length === 0
        ? `No x402 rail is enabled on this server. Pay with a prepaid key (Authorization: Bearer) or read ${baseUrl}/skill.md.`
        : `Each resource answers 402 with a PAYMENT-REQUIRED header; repeat the request with PAYMENT-SIGNATURE. See ${baseUrl}/skill.md.`,
  };
}
