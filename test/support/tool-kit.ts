/**
 * Helpers for the data tools' tests: a kasir whose tool upstreams are local fakes (reachable because 127.0.0.1 is
 * a trusted host there), and calls that check the money: a paid call charges exactly the tool's quote, a refused
 * one charges nothing.
 */

import { expect } from 'vitest';
import type { RawEnv } from '../../src/config/config-file.js';
import type { DbTarget } from './app.js';
import { bearer, type PaidKasir, startPaidKasir } from './paid.js';

/** Short enough that a 'slow' fake (2 s) times out quickly. */
export const TOOL_TEST_TIMEOUT_MS = 400;

export interface ToolKit {
  kasir: PaidKasir;
  /** POST /v1/tools/{name} with a JSON body, with or without a key. */
  call(name: string, body: unknown, key?: string): Promise<Response>;
  /** The prepaid quote of this call. */
  quote(name: string, body: Record<string, unknown>): number;
  /** Calls with a freshly funded key; expects 200 and a charge of exactly the quote (headers, body, balance). */
  paid(
    name: string,
    body: Record<string, unknown>,
  ): Promise<{ body: Record<string, unknown>; res: Response }>;
  /** Calls with a freshly funded key; expects `status` and a balance left whole. Returns the error body. */
  refused(
    name: string,
    body: unknown,
    status: number,
  ): Promise<{ error: { code: string; message: string; param?: string } }>;
  stop(): Promise<void>;
}

const FUNDS = 1_000_000;

export async function startToolKit(db: DbTarget, env: RawEnv): Promise<ToolKit> {
  const kasir = await startPaidKasir(db, {
    TOOL_TIMEOUT_MS: String(TOOL_TEST_TIMEOUT_MS),
    ...env,
  });
  const call = async (name: string, body: unknown, key?: string) =>
    kasir.app.request(`/v1/tools/${name}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(key ? bearer(key) : {}) },
      body: JSON.stringify(body),
    });
  const quote = (name: string, body: Record<string, unknown>) => {
    const { catalog } = kasir.deps;
    const entry = catalog.find(`tools/${name}`);
    if (!entry) throw new Error(`no tool ${name}`);
    const checked = catalog.validate(entry, structuredClone(body));
    if (!checked.ok) throw new Error(JSON.stringify(checked.errors));
    return catalog.quote(entry, checked.value, 'prepaid').costMicroUsd;
  };
  return {
    kasir,
    call,
    quote,
    async paid(name, body) {
      const { accountId, key } = await kasir.fundedKey(FUNDS);
      const res = await call(name, body, key);
      const text = await res.text();
      expect(res.status, text).toBe(200);
      const answer = JSON.parse(text) as Record<string, unknown>;
      const price = quote(name, body);
      expect(price).toBeGreaterThan(0);
      expect(answer.tool).toBe(`tools/${name}`);
      expect(answer.costMicroUsd).toBe(price);
      expect(res.headers.get('x-service-charged-micro-usd')).toBe(String(price));
      expect(res.headers.get('x-service-balance-micro-usd')).toBe(String(FUNDS - price));
      expect(await kasir.balance(accountId)).toEqual({ balance: FUNDS - price, held: 0 });
      return { body: answer, res };
    },
    async refused(name, body, status) {
      const { accountId, key } = await kasir.fundedKey(FUNDS);
      const res = await call(name, body, key);
      const text = await res.text();
      expect(res.status, text).toBe(status);
      expect(await kasir.balance(accountId)).toEqual({ balance: FUNDS, held: 0 });
      return JSON.parse(text);
    },
    stop: () => kasir.stop(),
  };
}
