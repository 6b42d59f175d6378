// A built kasir on a fake OpenAI upstream with its admin API on, and funded keys made through that API.
import { request } from 'undici';
import { startKasir, startNode } from './harness.mjs';

export const ADMIN = 'bench-admin-token-0123456789';

export async function admin(kasir, route, body) {
  const res = await request(`${kasir.url}${route}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return res.body.json();
}

/** A new account holding `microUsd`, and a key for it. */
export async function keyWith(kasir, microUsd) {
  const { account_id } = await admin(kasir, '/v1/admin/accounts', { label: 'bench' });
  if (microUsd > 0)
    await admin(kasir, `/v1/admin/accounts/${account_id}/credit`, {
      amount_micro_usd: microUsd,
      reason: 'bench',
    });
  const { key } = await admin(kasir, `/v1/admin/accounts/${account_id}/keys`, {});
  return key;
}

/** Starts the built kasir with its admin API on (ADMIN), logging warnings only (`env` on top). */
export function startAdminKasir(dataDir, env = {}) {
  return startKasir(dataDir, { ADMIN_TOKEN: ADMIN, LOG_LEVEL: 'warn', ...env });
}

/** Starts the fake upstream and kasir (with `env` on top), pushing both onto `children` to be stopped. */
export async function startChatKasir(children, dataDir, env = {}) {
  const upstream = await startNode('fake upstream', ['bench/lib/fake-openai.mjs'], {}, 'load');
  children.push(upstream);
  const kasir = await startAdminKasir(dataDir, {
    OPENAI_API_KEY: 'sk-bench',
    OPENAI_BASE_URL: `${upstream.url}/v1`,
    ...env,
  });
  children.push(kasir);
  return { upstream, kasir };
}
