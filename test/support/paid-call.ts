// One paid JSON call on a funded key, as the media and tool tests make it: the status, the charge and balance
// headers and the body; and the bytes behind one of kasir's own /v1/media links.
import { expect } from 'vitest';
import { bearer, type PaidKasir } from './paid.js';

export interface PaidAnswer<J> {
  status: number;
  charged: string | null;
  balance: string | null;
  json: J;
}

export async function postPaid<J>(
  kasir: PaidKasir,
  key: string,
  path: string,
  body: Record<string, unknown>,
  headers: Record<string, string> = {},
): Promise<PaidAnswer<J>> {
  const res = await kasir.app.request(path, {
    method: 'POST',
    body: JSON.stringify(body),
    headers: { 'content-type': 'application/json', ...headers, ...bearer(key) },
  });
  return {
    status: res.status,
    charged: res.headers.get('x-service-charged-micro-usd'),
    balance: res.headers.get('x-service-balance-micro-usd'),
    json: (await res.json()) as J,
  };
}

/** The paid call answered 200 (else its body shows) and charged exactly the quote for `body`. */
export function expectQuoteCharged(
  kasir: PaidKasir,
  answer: PaidAnswer<unknown>,
  body: Record<string, unknown>,
): void {
  expect(answer.status, JSON.stringify(answer.json)).toBe(200);
  expect(answer.charged).toBe(String(kasir.quote(body)));
}

/** The bytes kasir hosts at one of its /v1/media links. */
export async function hostedBytes(kasir: PaidKasir, url: string): Promise<Buffer> {
  return Buffer.from(await (await kasir.app.request(url.slice('http://kasir.test'.length))).arrayBuffer());
}
