/**
 * Opens the MPP rail from the configuration: its methods (Tempo charge, card), its replay store in the database and
 * one mppx handler per challenge secret, reloaded from the database every minute so that a rotation on any instance
 * reaches all of them. Null when neither method is configured (the rail is off).
 */
import { Mppx } from 'mppx/server';
import type { Config } from '../../config/load.js';
import type { Logger } from '../../http/logger.js';
import type { Db } from '../../store/db.js';
import type { Rail } from '../types.js';
import { cardMethod, stripeClient, tempoMethod } from './methods.js';
import { createMppRail, type MppxHandler, type SignedHandlers } from './rail.js';
import { tempoRefunder } from './refunds.js';
import { loadSecrets } from './secrets.js';
import { dbStore } from './store.js';

const RELOAD_MS = 60_000;

export interface OpenedMppRail {
  rail: Rail;
  /** Reads the secrets again now (after a rotation). */
  reload(): Promise<void>;
  close(): void;
}

export async function openMppRail(
  config: Config,
  deps: { db: Db; log: Logger },
): Promise<OpenedMppRail | null> {
  const { mpp } = config;
  if (!mpp.tempo && !mpp.stripe) return null;
  const store = dbStore(deps.db);
  const stripe = mpp.stripe ? stripeClient(mpp.stripe) : undefined;
  const methods = [
    ...(mpp.tempo ? [tempoMethod(mpp.tempo, store)] : []),
    ...(mpp.stripe && stripe ? [cardMethod(mpp.stripe, stripe)] : []),
  ];
  const realm = mpp.realm ?? new URL(config.publicBaseUrl).host;
  const build = async (): Promise<SignedHandlers> => {
    const secrets = await loadSecrets(deps.db);
    const bySecret = secrets.map(({ secret }) => ({
      secret,
      handler: Mppx.create({ methods, secretKey: secret, realm }) as unknown as MppxHandler,
    }));
    const first = bySecret[0];
    if (!first) throw new Error('mpp: no challenge secret');
    return { signer: first.handler, bySecret };
  };
  let handlers = await build();
  const reload = async () => {
    handlers = await build();
  };
  const timer = setInterval(() => {
    reload().catch((err) => deps.log.error({ err }, 'mpp: could not reload the challenge secrets'));
  }, RELOAD_MS);
  timer.unref();
  const refunder = mpp.tempo
    ? tempoRefunder(mpp.tempo, store)
    : { address: null, refund: () => Promise.reject(new Error('mpp: Tempo is off')) };
  const rail = createMppRail({ ...deps, config: mpp, handlers: () => handlers, stripe, store, refunder });
  return { rail, reload, close: () => clearInterval(timer) };
}
