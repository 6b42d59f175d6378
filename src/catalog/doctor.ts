/**
 * `npx kasir doctor`: asks every configured provider (and self-hosted server) for its model list, once, and reports
 * per provider how many models it lists, the catalog models it does not list (kasir shows those unavailable and
 * does not sell them) and any list it could not read. Needs no database; prints JSON.
 */
import type { Config } from '../config/load.js';
import { loadCatalog } from './load.js';
import { type ListReading, startModelWatch } from './model-watch.js';

export interface DoctorReport {
  providers: ListReading[];
  /** True when every list was read and no catalog model is missing from its provider's list. */
  ok: boolean;
}

export async function runDoctor(
  config: Config,
  list?: Parameters<typeof startModelWatch>[3],
): Promise<DoctorReport> {
  const catalog = loadCatalog({ marginPercent: config.providerMarginPercent });
  // The doctor always asks, whatever UPSTREAM_MODEL_CHECK says, and reads each list once.
  const watch = startModelWatch(
    { providers: config.providers, models: { ...config.models, upstreamCheck: true, refreshSeconds: 0 } },
    catalog,
    undefined,
    list,
  );
  await watch.ready;
  watch.stop();
  const providers = watch.report();
  return { providers, ok: providers.every((r) => !r.error && r.missing.length === 0) };
}
